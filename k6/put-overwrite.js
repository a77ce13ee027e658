// Tape 2, put-overwrite: PUTs of which 10% (OVERWRITE, a fraction) overwrite an existing key of the pre-filled
// set, chosen uniformly; the rest write new keys. Parameters: see lib/tape.js.
import { iteration, loadOptions, newKey, filledKey, put, summary, uniform, uniformFilled } from './lib/tape.js';

const OVERWRITE = parseFloat(__ENV.OVERWRITE || '0.1');
if (!(OVERWRITE >= 0 && OVERWRITE <= 1)) throw new Error(`OVERWRITE must be a fraction in [0, 1], got '${__ENV.OVERWRITE}'`);

export const options = loadOptions();

export default function () {
  const i = iteration();
  put(i, uniform(i, 0) < OVERWRITE ? filledKey(uniformFilled(i, 1)) : newKey('put-overwrite', i));
}

export const handleSummary = summary('put-overwrite');
