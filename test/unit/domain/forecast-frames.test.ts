import {
  forecastArchivePath,
  forecastFromFileName,
  forecastKey,
  forecastValidTimestamp,
  isForecastKey,
  parseForecastKey,
  parseLead,
} from '../../../src/domain/forecast-frames';
import { timestampFromFileName } from '../../../src/domain/timestamps';

describe('forecast frame identity', () => {
  it('keys a frame by base and three-digit lead, and reads the key back', () => {
    const key = forecastKey({ base: '202611281200', lead: 30 });
    expect(key).toBe('forecast-202611281200-030');
    expect(parseForecastKey(key)).toEqual({ base: '202611281200', lead: 30 });
    expect(forecastKey({ base: '202611281200', lead: 1440 })).toBe('forecast-202611281200-1440');
  });

  it('never reads an observed timestamp or a malformed key as a forecast', () => {
    for (const key of [
      '202611281200',
      'forecast-202611281200-30',
      'forecast-202611281200-000',
      'forecast-202611281200-0030',
      'forecast-202613281200-030',
      'forecast-202611281200-1441',
      'Forecast-202611281200-030',
    ]) {
      expect(isForecastKey(key)).toBe(false);
    }
  });

  it('names a stored file that the observed-archive parser refuses, and the reverse', () => {
    const name = `${forecastKey({ base: '202611281200', lead: 10 })}.pmtiles`;
    expect(forecastFromFileName(name)).toEqual({ base: '202611281200', lead: 10 });
    expect(timestampFromFileName(name)).toBeUndefined();
    expect(forecastFromFileName('202611281200.pmtiles')).toBeUndefined();
  });

  it('accepts only canonical leads in a path', () => {
    expect(parseLead('10')).toBe(10);
    expect(parseLead('1440')).toBe(1440);
    for (const bad of ['010', '0', '-10', '+10', '1e1', '1441', '10.0', '']) {
      expect(parseLead(bad)).toBeUndefined();
    }
  });

  it('adds the lead to the base across days and years', () => {
    expect(forecastValidTimestamp({ base: '202612312350', lead: 60 })).toBe('202701010050');
    expect(forecastArchivePath({ base: '202611281200', lead: 60 })).toBe(
      '/forecasts/202611281200/60.pmtiles',
    );
  });
});
