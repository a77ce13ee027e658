// The pre-fill of the GET and overwrite tapes: PUTs of KEYS keys FILL-0 .. FILL-(KEYS-1) in index order (the
// newest keys have the highest indices, which get-recent relies on), closed model, FILL_VUS users (16).
// Parameters: see lib/tape.js.
import { fillOptions, filledKey, iteration, put, summary } from './lib/tape.js';

export const options = fillOptions();

export default function () {
  const i = iteration();
  put(i, filledKey(i));
}

export const handleSummary = summary('fill');
