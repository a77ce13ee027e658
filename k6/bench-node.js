// k6 open-model load for `make bench-node`: a constant arrival rate of PUTs of unique keys or GETs of keys that
// exist, against one node (or the bare one-nio server). Driven by scripts/bench/harness/measure.py through environment:
//   BASE_URL         http://127.0.0.1:8080
//   MODE             put | get
//   RATE             requests per second to start (constant-arrival-rate)
//   DURATION         e.g. 30s
//   KEY_PREFIX       PUT key prefix (unique per run)
//   KEY_THREADS      GET: writer threads of the fill (keys t<thread>-<n>)
//   KEYS_PER_THREAD  GET: keys each writer thread wrote
//   PRE_VUS, MAX_VUS virtual users pre-allocated / at most (default 100 / 1000)
//   SUMMARY          where to write the JSON summary
// Iterations k6 cannot start on time are counted as dropped_iterations: the coordinated-omission signal.
import http from 'k6/http';
import exec from 'k6/execution';

const BASE = __ENV.BASE_URL || 'http://127.0.0.1:8080';
const MODE = __ENV.MODE || 'get';
const RATE = parseInt(__ENV.RATE || '1000', 10);
const DURATION = __ENV.DURATION || '30s';
const PREFIX = __ENV.KEY_PREFIX || 'k6-';
const KEY_THREADS = parseInt(__ENV.KEY_THREADS || '2', 10);
const KEYS_PER_THREAD = parseInt(__ENV.KEYS_PER_THREAD || '1000', 10);
const VALUE = '0123456789'.repeat(10);

export const options = {
  discardResponseBodies: true,
  summaryTrendStats: ['min', 'med', 'avg', 'p(90)', 'p(99)', 'p(99.9)', 'max'],
  scenarios: {
    load: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: parseInt(__ENV.PRE_VUS || '100', 10),
      maxVUs: parseInt(__ENV.MAX_VUS || '1000', 10),
    },
  },
};

function pad10(n) {
  const s = String(n);
  return '0000000000'.substring(s.length) + s;
}

export default function () {
  if (MODE === 'put') {
    http.put(`${BASE}/v0/entity?id=${PREFIX}${exec.scenario.iterationInTest}`, VALUE, { tags: { name: 'put' } });
  } else {
    const t = Math.floor(Math.random() * KEY_THREADS);
    const n = 1 + Math.floor(Math.random() * (KEYS_PER_THREAD - 1)); // n = 0 may not exist (wrk)
    http.get(`${BASE}/v0/entity?id=t${t}-${pad10(n)}`, { tags: { name: 'get' } });
  }
}

export function handleSummary(data) {
  const m = data.metrics;
  const d = m.http_req_duration.values;
  const out = {
    mode: MODE,
    rate_target: RATE,
    duration: DURATION,
    requests: m.http_reqs ? m.http_reqs.values.count : 0,
    achieved_rps: m.http_reqs ? m.http_reqs.values.rate : 0,
    dropped_iterations: m.dropped_iterations ? m.dropped_iterations.values.count : 0,
    failed_rate: m.http_req_failed ? m.http_req_failed.values.rate : 0,
    max_vus: m.vus_max ? m.vus_max.values.max : 0,
    latency_ms: { p50: d.med, p90: d['p(90)'], p99: d['p(99)'], p999: d['p(99.9)'], max: d.max, avg: d.avg },
  };
  const line = `k6 ${MODE} target ${RATE}/s: achieved ${out.achieved_rps.toFixed(0)}/s, dropped ${out.dropped_iterations}, `
    + `failed ${(out.failed_rate * 100).toFixed(3)}%, p50 ${d.med.toFixed(3)} ms, p99 ${d['p(99)'].toFixed(3)} ms, `
    + `p99.9 ${d['p(99.9)'].toFixed(3)} ms, max ${d.max.toFixed(3)} ms\n`;
  const result = { stdout: line };
  if (__ENV.SUMMARY) {
    result[__ENV.SUMMARY] = JSON.stringify(out, null, 2);
  }
  return result;
}
