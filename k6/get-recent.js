// Tape 4, get-recent: GETs of keys of the pre-filled set, skewed toward the most recently written ones (~80% of
// the reads on the newest 10% of the keys; see recentFilled in lib/tape.js). Parameters: see lib/tape.js.
import { iteration, loadOptions, filledKey, get, recentFilled, summary } from './lib/tape.js';

export const options = loadOptions();

export default function () {
  const i = iteration();
  get(i, filledKey(recentFilled(i, 0)));
}

export const handleSummary = summary('get-recent');
