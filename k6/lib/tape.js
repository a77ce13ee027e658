// What the five tapes share: parameters, key choice, requests, the load profile and the summary.
// A tape file (k6/<tape>.js) only says which request its iteration i makes. Parameters (environment):
//   TARGETS     base URLs, comma-separated (default http://127.0.0.1:8080); iteration i goes to TARGETS[i % n]
//   REPLICAS    replicas=ack/from on every request (e.g. 2/3); empty: the node's default
//   KEYS        size of the pre-filled key set the GET and overwrite tapes read (default 10000)
//   VALUE_SIZE  bytes per PUT value (default 100)
//   SEED        seed of every random choice (default 1): the same seed gives the same key sequence
//   RUN         namespace of the keys this run writes (default "run"); FILL: the pre-filled set's (RUN-fill)
//   PROFILE     const (constant arrival rate, open model) | ramp (from START_RATE up to RATE over DURATION)
//   RATE        requests/s (const), or the final rate of the ramp (default 100)
//   START_RATE  ramp only (default 1)
//   DURATION    e.g. 45s (default 30s)
//   PRE_VUS, MAX_VUS  virtual users pre-allocated / at most (default 50 / 2000)
//   SUMMARY     where to write the run's figures as JSON (the runner reads it)
//   DHT_TOKEN   a bearer token sent on every request (a cluster with client tokens: DhtCluster spec.auth)
//   DHT_CLIENT_CERT, DHT_CLIENT_KEY  a client certificate presented on https:// targets (a client port that asks
//               for one); the CA the targets' certificate is checked against is the runner's SSL_CERT_FILE
// Iterations k6 could not start on time (no free VU) are counted as dropped_iterations: the open model's
// signal that the generator, not the server, fell behind.
import http from 'k6/http';
import exec from 'k6/execution';

export const TARGETS = (__ENV.TARGETS || 'http://127.0.0.1:8080').split(',').map((s) => s.trim().replace(/\/+$/, ''))
  .filter((s) => s.length > 0);
export const KEYS = positiveInt('KEYS', 10000);
export const VALUE_SIZE = positiveInt('VALUE_SIZE', 100);
export const SEED = positiveInt('SEED', 1);
export const RUN = __ENV.RUN || 'run';
export const FILL = __ENV.FILL || `${RUN}-fill`;
const REPLICAS = __ENV.REPLICAS ? `&replicas=${encodeURIComponent(__ENV.REPLICAS)}` : '';
const PROFILE = __ENV.PROFILE || 'const';
const RATE = positiveInt('RATE', 100);
const START_RATE = positiveInt('START_RATE', 1);
const DURATION = __ENV.DURATION || '30s';
const HEADERS = __ENV.DHT_TOKEN ? { Authorization: `Bearer ${__ENV.DHT_TOKEN}` } : {};

function positiveInt(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return v;
}

if (TARGETS.length === 0) throw new Error('TARGETS is empty: give one or more base URLs, comma-separated');
if (PROFILE !== 'const' && PROFILE !== 'ramp') throw new Error(`PROFILE must be const or ramp, got '${PROFILE}'`);

// One value for every PUT: its content does not matter to the store, its size does.
export const VALUE = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(VALUE_SIZE / 36)).substring(0, VALUE_SIZE);

// A uniform number in [0, 1) from (SEED, iteration, salt): a stateless hash (murmur3's finaliser), so the
// choice of iteration i does not depend on which VU runs it or in which order.
export function uniform(i, salt) {
  let h = (Math.imul(SEED, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  // a second round over the high bits of i (iterations past 2^32 are not expected, but stay distinct)
  h = (h ^ Math.floor(i / 4294967296)) >>> 0;
  return h / 4294967296;
}

export function iteration() {
  return exec.scenario.iterationInTest;
}

export function newKey(tape, i) { return `${RUN}-${tape}-${i}`; }
export function filledKey(n) { return `${FILL}-${n}`; }
export function uniformFilled(i, salt) { return Math.min(KEYS - 1, Math.floor(uniform(i, salt) * KEYS)); }
// Skewed toward the most recently written: the fill writes keys in index order, so the newest are the highest
// indices. An offset u^10 * KEYS back from the newest puts ~80% of reads on the newest 10% of the keys
// (P(u^10 < 0.1) = 0.1^0.1 = 0.79) and ~50% on the newest 0.1%.
export function recentFilled(i, salt) {
  return KEYS - 1 - Math.min(KEYS - 1, Math.floor(Math.pow(uniform(i, salt), 10) * KEYS));
}

function target(i) { return TARGETS[i % TARGETS.length]; }

export function put(i, key) {
  return http.put(`${target(i)}/v0/entity?id=${encodeURIComponent(key)}${REPLICAS}`, VALUE, { headers: HEADERS, tags: { name: 'put' } });
}

export function get(i, key) {
  return http.get(`${target(i)}/v0/entity?id=${encodeURIComponent(key)}${REPLICAS}`, { headers: HEADERS, tags: { name: 'get' } });
}

const CLIENT_CERT = __ENV.DHT_CLIENT_CERT
  ? [{ cert: open(__ENV.DHT_CLIENT_CERT), key: open(__ENV.DHT_CLIENT_KEY) }] : undefined;

const COMMON = {
  ...(CLIENT_CERT ? { tlsAuth: CLIENT_CERT } : {}),
  discardResponseBodies: true,
  // Few tags per sample: the time series output stays small and the runner only needs these.
  systemTags: ['status', 'method', 'name', 'expected_response'],
  summaryTrendStats: ['min', 'med', 'avg', 'p(90)', 'p(99)', 'p(99.9)', 'max'],
};

// The options of a load tape: const or ramp, per PROFILE.
export function loadOptions() {
  const vus = { preAllocatedVUs: positiveInt('PRE_VUS', 50), maxVUs: positiveInt('MAX_VUS', 2000) };
  const scenario = PROFILE === 'const'
    ? { executor: 'constant-arrival-rate', rate: RATE, timeUnit: '1s', duration: DURATION, ...vus }
    : { executor: 'ramping-arrival-rate', startRate: START_RATE, timeUnit: '1s',
        stages: [{ target: RATE, duration: DURATION }], ...vus };
  return { ...COMMON, scenarios: { load: { ...scenario, gracefulStop: '5s' } } };
}

// The fill: KEYS PUTs of filledKey(0..KEYS-1), closed model, as fast as FILL_VUS users go.
export function fillOptions() {
  return { ...COMMON, scenarios: { fill: { executor: 'shared-iterations', vus: positiveInt('FILL_VUS', 16),
    iterations: KEYS, maxDuration: __ENV.FILL_MAX_DURATION || '10m' } } };
}

// The figures the runner keeps (summary.json), from k6's end-of-test summary.
export function summary(tape) {
  return function handleSummary(data) {
    const m = data.metrics;
    const d = m.http_req_duration ? m.http_req_duration.values : {};
    const out = {
      tape,
      profile: tape === 'fill' ? 'fill' : PROFILE,
      rate: RATE,
      start_rate: START_RATE,
      duration: DURATION,
      targets: TARGETS,
      keys: KEYS,
      value_size: VALUE_SIZE,
      seed: SEED,
      requests: m.http_reqs ? m.http_reqs.values.count : 0,
      rps: m.http_reqs ? m.http_reqs.values.rate : 0,
      errors: m.http_req_failed ? m.http_req_failed.values.passes : 0,
      dropped: m.dropped_iterations ? m.dropped_iterations.values.count : 0,
      vus_max: m.vus_max ? m.vus_max.values.max : 0,
      p50_ms: d.med, p90_ms: d['p(90)'], p99_ms: d['p(99)'], p999_ms: d['p(99.9)'], max_ms: d.max, avg_ms: d.avg,
    };
    const fix = (v) => (v === undefined ? '-' : v.toFixed(3));
    const load = tape === 'fill' ? 'closed model' : `${PROFILE} ${RATE}/s`;
    const line = `k6 ${tape} (${load}): ${out.requests} requests, ${out.rps.toFixed(0)}/s, `
      + `errors ${out.errors}, dropped ${out.dropped}, p50 ${fix(d.med)} ms, p99 ${fix(d['p(99)'])} ms, `
      + `p99.9 ${fix(d['p(99.9)'])} ms, max ${fix(d.max)} ms\n`;
    const result = { stdout: line };
    if (__ENV.SUMMARY) result[__ENV.SUMMARY] = JSON.stringify(out, null, 2);
    return result;
  };
}
