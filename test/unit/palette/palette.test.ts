import {
  colorForDbz,
  hexToRgb,
  MIN_VISIBLE_DBZ,
  paletteIndex,
  paletteRgba,
  REFLECTIVITY_PALETTE,
} from '../../../src/palette/palette';

describe('reflectivity palette', () => {
  it('is the NWS scale: 15 steps of 5 dBZ from 5 to 75', () => {
    expect(REFLECTIVITY_PALETTE.map((s) => s.dbz)).toEqual([
      5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75,
    ]);
    expect(REFLECTIVITY_PALETTE[0]).toEqual({ dbz: 5, color: '#04e9e7' });
    expect(REFLECTIVITY_PALETTE[7]).toEqual({ dbz: 40, color: '#e5bc00' });
    expect(REFLECTIVITY_PALETTE[12]).toEqual({ dbz: 65, color: '#f800fd' });
    expect(REFLECTIVITY_PALETTE[14]).toEqual({ dbz: 75, color: '#fdfdfd' });
    expect(Object.isFrozen(REFLECTIVITY_PALETTE)).toBe(true);
  });

  it('is transparent below 5 dBZ and for NaN', () => {
    expect(MIN_VISIBLE_DBZ).toBe(5);
    for (const dbz of [-30, 0, 4.999, NaN, -Infinity]) {
      expect(paletteIndex(dbz)).toBe(0);
      expect(colorForDbz(dbz)).toBeUndefined();
    }
  });

  it('maps each step from its lower bound (inclusive) to the next (exclusive)', () => {
    REFLECTIVITY_PALETTE.forEach((step, i) => {
      expect(paletteIndex(step.dbz)).toBe(i + 1);
      expect(colorForDbz(step.dbz)).toBe(step.color);
      expect(colorForDbz(step.dbz + 4.99)).toBe(step.color);
    });
    expect(colorForDbz(9.99)).toBe('#04e9e7');
    expect(colorForDbz(10)).toBe('#019ff4');
    expect(colorForDbz(49.9)).toBe('#fd9500');
    expect(colorForDbz(50)).toBe('#fd0000');
  });

  it('keeps the top colour above 75 dBZ', () => {
    expect(colorForDbz(80)).toBe('#fdfdfd');
    expect(colorForDbz(Infinity)).toBe('#fdfdfd');
  });

  it('gives RGBA per PNG index, index 0 transparent', () => {
    const rgba = paletteRgba();
    expect(rgba).toHaveLength(16);
    expect(rgba[0]).toEqual([0, 0, 0, 0]);
    expect(rgba[1]).toEqual([0x04, 0xe9, 0xe7, 255]);
    expect(rgba[15]).toEqual([0xfd, 0xfd, 0xfd, 255]);
    expect(hexToRgb('#FD9500')).toEqual([253, 149, 0]);
    expect(() => hexToRgb('red')).toThrow();
  });
});
