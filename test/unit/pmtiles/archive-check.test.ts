/**
 * The directory and metadata checks behind ingest: a writer archive passes; a garbled root,
 * leaf or metadata section, entries pointing outside their section, and metadata that is not a
 * JSON object are each found, with what is wrong.
 */
import {
  checkDirectory,
  leafDirectoryProblem,
  MAX_METADATA_BYTES,
  metadataProblem,
} from '../../../src/pmtiles/archive-check';
import { readArchiveMetadata } from '../../../src/pmtiles/archive-metadata';
import { decodeHeader } from '../../../src/pmtiles/header';
import { buildArchive } from '../../fixtures/archives';
import {
  leafArchive,
  withCorruptFirstLeaf,
  withCorruptMetadata,
  withCorruptRoot,
  withHeader,
  withMetadataText,
} from '../../fixtures/corrupt-archives';

const TS = '202611221400';
const leaves = leafArchive(TS);

function sections(archive: Buffer) {
  const header = decodeHeader(archive);
  const root = archive.subarray(
    header.rootDirectoryOffset,
    header.rootDirectoryOffset + header.rootDirectoryLength,
  );
  const metadata = archive.subarray(
    header.jsonMetadataOffset,
    header.jsonMetadataOffset + header.jsonMetadataLength,
  );
  const reads: Array<[number, number]> = [];
  const read = async (offset: number, length: number) => {
    reads.push([offset, length]);
    return archive.subarray(offset, offset + length);
  };
  return { header, root, metadata, read, reads };
}

it('passes a writer archive with leaf directories, reading the leaves in one batch', async () => {
  const { header, root, metadata, read, reads } = sections(leaves);
  expect(header.leafDirectoryLength).toBeGreaterThan(0);
  const check = checkDirectory(root, header);
  expect(check.ok).toBe(true);
  if (!check.ok) return;
  expect(check.directory.runLengths.every((r) => r === 0)).toBe(true); // all leaf pointers
  expect(metadataProblem(metadata, header)).toBeUndefined();
  expect(await leafDirectoryProblem(header, check.directory, read)).toBeUndefined();
  // Six leaves, well under 1 MiB together: one read of the whole leaf section.
  expect(reads).toEqual([[header.leafDirectoryOffset, header.leafDirectoryLength]]);
});

it('passes an archive whose root holds the tiles (no leaves)', async () => {
  const { header, root, metadata, read, reads } = sections(buildArchive(TS, 3));
  const check = checkDirectory(root, header);
  expect(check.ok && metadataProblem(metadata, header) === undefined).toBe(true);
  if (check.ok) expect(await leafDirectoryProblem(header, check.directory, read)).toBeUndefined();
  expect(reads).toEqual([]);
});

it('finds a garbled root directory', () => {
  const { header, root } = sections(withCorruptRoot(leaves));
  expect(checkDirectory(root, header)).toMatchObject({
    ok: false,
    detail: expect.stringMatching(/corrupt compressed section/),
  });
});

it('finds a garbled leaf directory, naming where it is', async () => {
  const { header, root, read } = sections(withCorruptFirstLeaf(leaves));
  const check = checkDirectory(root, header);
  if (!check.ok) throw new Error('root should pass');
  expect(await leafDirectoryProblem(header, check.directory, read)).toMatch(
    /^leaf at 0: corrupt compressed section/,
  );
});

it('finds entries that point outside their section', () => {
  // Tile data shortened under the root's entries: they point past it.
  const small = buildArchive(TS, 3);
  const h = decodeHeader(small);
  const shrunk = sections(withHeader(small, { tileDataLength: h.tileDataLength - 1 }));
  expect(checkDirectory(shrunk.root, shrunk.header)).toMatchObject({
    ok: false,
    detail: expect.stringMatching(/points past the tile data/),
  });
  // Leaf section shortened under the root's leaf pointers.
  const lh = decodeHeader(leaves);
  const cut = sections(withHeader(leaves, { leafDirectoryLength: lh.leafDirectoryLength - 1 }));
  expect(checkDirectory(cut.root, cut.header)).toMatchObject({
    ok: false,
    detail: expect.stringMatching(/points past the leaf directories/),
  });
});

it('finds a directory in an unsupported compression', () => {
  const { header, root } = sections(leaves);
  expect(checkDirectory(root, { ...header, internalCompression: 4 })).toMatchObject({
    ok: false,
    detail: 'unsupported internal compression 4',
  });
});

it.each([
  ['garbled gzip', withCorruptMetadata(buildArchive(TS, 3)), /corrupt compressed section/],
  ['not JSON', withMetadataText(buildArchive(TS, 3), '{"name": '), /JSON/],
  ['a JSON array', withMetadataText(buildArchive(TS, 3), '[]'), /not a JSON object/],
  ['JSON null', withMetadataText(buildArchive(TS, 3), 'null'), /not a JSON object/],
])('finds metadata that is %s', (_what, archive, problem) => {
  const { header, metadata } = sections(archive);
  expect(metadataProblem(metadata, header)).toMatch(problem);
});

it('bounds what a small compressed section may expand to', () => {
  // 100 MB of zeros gzip to about 100 KB: refused, not allocated.
  const bomb = withMetadataText(buildArchive(TS, 3), `{"x":"${'0'.repeat(100_000_000)}"}`);
  const { header, metadata } = sections(bomb);
  expect(metadata.length).toBeLessThan(200_000);
  expect(metadataProblem(metadata, header)).toMatch(/corrupt compressed section/);
});

it('reads metadata whose text is longer than the cap on its stored size, in ingest and in a producer alike', () => {
  const note = 'x'.repeat(2 * MAX_METADATA_BYTES);
  const archive = withMetadataText(buildArchive(TS, 3), JSON.stringify({ note }));
  const { header, metadata } = sections(archive);
  expect(metadata.length).toBeLessThan(MAX_METADATA_BYTES); // as stored: within ingest's cap
  expect(metadataProblem(metadata, header)).toBeUndefined();
  expect(readArchiveMetadata(archive).note).toBe(note);
});
