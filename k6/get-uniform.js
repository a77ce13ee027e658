// Tape 3, get-uniform: GETs of keys of the pre-filled set, uniformly (every one exists: a 404 is an error).
// Parameters: see lib/tape.js.
import { iteration, loadOptions, filledKey, get, summary, uniformFilled } from './lib/tape.js';

export const options = loadOptions();

export default function () {
  const i = iteration();
  get(i, filledKey(uniformFilled(i, 0)));
}

export const handleSummary = summary('get-uniform');
