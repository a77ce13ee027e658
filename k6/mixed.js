// Tape 5, mixed: 50% PUTs of new keys, 50% GETs of keys of the pre-filled set, uniformly.
// Parameters: see lib/tape.js.
import { iteration, loadOptions, newKey, filledKey, get, put, summary, uniform, uniformFilled } from './lib/tape.js';

export const options = loadOptions();

export default function () {
  const i = iteration();
  if (uniform(i, 0) < 0.5) {
    put(i, newKey('mixed', i));
  } else {
    get(i, filledKey(uniformFilled(i, 1)));
  }
}

export const handleSummary = summary('mixed');
