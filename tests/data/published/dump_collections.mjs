// Print every puzzle entry of sigh/Interactive-Sudoku-Solver's data/collections.js as JSON.
//
// Usage: copy that repository's data/collections.js and data/example_puzzles.js beside this
// file as collections.mjs and example_puzzles.mjs, replace the import path of
// example_puzzles.js in collections.mjs by './example_puzzles.mjs' (it appends a browser-only
// version parameter), then: node dump_collections.mjs > DUMP.json
import * as C from './collections.mjs';
import * as E from './example_puzzles.mjs';

const out = [];
for (const p of C.EXAMPLES) out.push({ group: 'EXAMPLES', ...p });
for (const p of E.DISPLAYED_EXAMPLES) out.push({ group: 'DISPLAYED_EXAMPLES', ...p });
for (const [name, list] of Object.entries(C)) {
  if (list && list.configFor) for (const entry of list) out.push({ group: name, ...list.configFor(entry) });
}
console.log(JSON.stringify(out));
