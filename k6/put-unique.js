// Tape 1, put-unique: every request PUTs a key never written before. Parameters: see lib/tape.js.
import { iteration, loadOptions, newKey, put, summary } from './lib/tape.js';

export const options = loadOptions();

export default function () {
  const i = iteration();
  put(i, newKey('put-unique', i));
}

export const handleSummary = summary('put-unique');
