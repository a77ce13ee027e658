#!/usr/bin/env bash
# bench-pod.sh -> one dht node in a pod, with one-nio's native sockets (the image on Debian trixie, glibc 2.41)
# and without them (the same image on Debian bookworm, glibc 2.36: one-nio falls back to JDK NIO), measured in
# the same run by the same in-cluster load (oha in a Job of the load-runner image, closed model: 64 connections,
# PUT then GET). Rounds alternate the two so that drift on a shared machine hits both. Writes
# docs/benchmarks/pod.md and pod.json (make bench-pod; the local cluster must be up: make k8s-up).
#
# Environment: BENCH_DURATION (20 s per measured phase), BENCH_WARMUP (5 s), BENCH_ROUNDS (2),
# BENCH_CONNECTIONS (64), BENCH_OUT (docs/benchmarks), IMAGE_TAG.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"

DURATION=${BENCH_DURATION:-20}
WARMUP=${BENCH_WARMUP:-5}
ROUNDS=${BENCH_ROUNDS:-2}
CONNS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$DHT_ROOT/docs/benchmarks}
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
NS=dht-bench-pod
KUBECTL=${KUBECTL:-$("$DHT_ROOT/scripts/kube-binaries.sh" --bin-dir kubectl)/kubectl}
kn() { "$KUBECTL" -n "$NS" "$@"; }
"$KUBECTL" version --request-timeout=10s >/dev/null 2>&1 || die "no cluster at the current kubeconfig: make k8s-up"

declare -A IMAGE=([native]="dht-node:$TAG" [nio]="dht-node:$TAG-bookworm")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dht-bench-pod.XXXXXX")
cleanup() { "$KUBECTL" delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$KUBECTL" delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null
"$KUBECTL" create namespace "$NS" >/dev/null

node_pod() { # node_pod VARIANT -> a single-node dht in a pod; prints its IP when ready
  local v=$1
  kn apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: node-$v, labels: {app: bench-node}}
spec:
  enableServiceLinks: false
  securityContext: {runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: node
    image: ${IMAGE[$v]}
    imagePullPolicy: IfNotPresent
    args: ["--port", "8080", "--data-dir", "/var/lib/dht"]
    env: [{name: JAVA_TOOL_OPTIONS, value: "-XX:MaxRAMPercentage=40.0"}]
    resources: {requests: {cpu: "1", memory: 2Gi}, limits: {memory: 2Gi}}
    readinessProbe: {httpGet: {path: /v0/status, port: 8080}, periodSeconds: 1}
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
    volumeMounts: [{name: data, mountPath: /var/lib/dht}, {name: tmp, mountPath: /tmp}]
  volumes: [{name: data, emptyDir: {}}, {name: tmp, emptyDir: {}}]
EOF
  kn wait --for=condition=Ready "pod/node-$v" --timeout=120s >/dev/null || die "node-$v did not become ready"
  kn get pod "node-$v" -o jsonpath='{.status.podIP}'
}

oha_job() { # oha_job NAME SECONDS METHOD URL-REGEX -> oha's JSON summary on stdout
  local name=$1 secs=$2 method=$3 url=$4
  kn delete job "$name" --ignore-not-found --wait=true >/dev/null 2>&1 || true
  kn apply -f - >/dev/null <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: $name}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      securityContext: {runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001}
      containers:
      - name: oha
        image: dht-loadrunner:$TAG
        imagePullPolicy: IfNotPresent
        command: ["/opt/dht/bin/oha"]
        args: ["-z", "${secs}s", "-c", "$CONNS", "-m", "$method", "-d", "$(printf '%0100d' 0)", "--rand-regex-url",
               '$url', "--no-tui", "--output-format", "json"]
EOF
  kn wait --for=condition=complete "job/$name" --timeout=$((secs + 120))s >/dev/null || die "oha job $name failed"
  kn logs "job/$name"
}

measure() { # measure VARIANT ROUND -> $WORK/<variant>-<round>-<put|get>.json
  local v=$1 r=$2 ip native
  ip=$(node_pod "$v")
  if kn logs "node-$v" | grep -q "sockets: JDK NIO"; then native=false; else native=true; fi
  log "round $r, $v (${IMAGE[$v]}, native sockets: $native) at $ip"
  oha_job warm "$WARMUP" PUT "http://$ip:8080/v0/entity\\?id=w[0-9]{5}" >/dev/null
  oha_job put "$DURATION" PUT "http://$ip:8080/v0/entity\\?id=k[0-9]{5}" > "$WORK/$v-$r-put.json"
  oha_job get "$DURATION" GET "http://$ip:8080/v0/entity\\?id=k[0-9]{5}" > "$WORK/$v-$r-get.json"
  echo "$native" > "$WORK/$v-$r-native"
  kn delete pod "node-$v" --wait=true >/dev/null
}

load_before=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 1; r <= ROUNDS; r++)); do
  for v in native nio; do measure "$v" "$r"; done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

mkdir -p "$OUT"
python3 - "$WORK" "$OUT" "$ROUNDS" "$DURATION" "$CONNS" "$load_before" "$load_after" "${IMAGE[native]}" "${IMAGE[nio]}" <<'EOF'
import json, os, subprocess, sys, time
work, out, rounds, duration, conns, lb, la, img_native, img_nio = sys.argv[1:]
rounds = int(rounds)
rows, data = [], {"rounds": [], "duration_s": int(duration), "connections": int(conns), "load_before": lb,
                  "load_after": la, "images": {"native": img_native, "nio": img_nio},
                  "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
                  "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
def fig(path):
    d = json.load(open(path))
    s, p = d["summary"], d["latencyPercentiles"]
    codes = d.get("statusCodeDistribution", {})
    return {"rps": round(s["requestsPerSec"]), "p50_ms": round(p["p50"] * 1000, 2), "p99_ms": round(p["p99"] * 1000, 2),
            "ok": sum(v for k, v in codes.items() if k.startswith("2")), "absent": codes.get("404", 0),
            "errors": sum(v for k, v in codes.items() if not k.startswith("2") and k != "404") + sum(d.get("errorDistribution", {}).values())}
for r in range(1, rounds + 1):
    for v in ("native", "nio"):
        native = open(f"{work}/{v}-{r}-native").read().strip()
        entry = {"round": r, "variant": v, "native_sockets": native == "true"}
        for m in ("put", "get"):
            entry[m] = fig(f"{work}/{v}-{r}-{m}.json")
        data["rounds"].append(entry)
def mean(v, m):
    xs = [e[m]["rps"] for e in data["rounds"] if e["variant"] == v]
    return sum(xs) / len(xs)
data["ratio_native_over_nio"] = {m: round(mean("native", m) / mean("nio", m), 3) for m in ("put", "get")}
json.dump(data, open(f"{out}/pod.json", "w"), indent=2)
with open(f"{out}/pod.md", "w") as f:
    f.write("# One node in a pod: one-nio native sockets or JDK NIO\n\n")
    f.write(f"Written by `make bench-pod` (scripts/bench-pod.sh) on {data['date']}, commit {data['commit']}, on the local cluster "
            f"(`make k8s-up`). One dht node in a pod (1 CPU requested, no CPU limit, 2 GiB, emptyDir data), loaded by oha "
            f"in a Job on the same node: closed model, {conns} connections, {duration} s of PUT (100-byte values, ids drawn "
            f"from 100,000 keys) then {duration} s of GET over the same ids, after a short PUT warm-up. "
            f"`native`: {img_native} (Debian trixie base, glibc 2.41: one-nio loads its native socket library); "
            f"`nio`: {img_nio} (Debian bookworm base, glibc 2.36: one-nio falls back to JDK NIO sockets). "
            f"Rounds alternate the two. Load average before/after: {lb} / {la}.\n\n")
    f.write("| round | image | native sockets | PUT req/s | PUT p50 / p99 ms | GET req/s | GET p50 / p99 ms | GET 404 | errors |\n|---|---|---|---|---|---|---|---|---|\n")
    for e in data["rounds"]:
        f.write(f"| {e['round']} | {e['variant']} | {'yes' if e['native_sockets'] else 'no'} | {e['put']['rps']} | "
                f"{e['put']['p50_ms']} / {e['put']['p99_ms']} | {e['get']['rps']} | {e['get']['p50_ms']} / {e['get']['p99_ms']} | "
                f"{e['get']['absent']} | {e['put']['errors'] + e['get']['errors']} |\n")
    rn = data["ratio_native_over_nio"]
    f.write(f"\nMean throughput, native over NIO: PUT {rn['put']}x, GET {rn['get']}x.\n")
    f.write("\n`errors`: answers other than 2xx and 404, plus oha's error distribution, which also counts the requests still in "
            "flight when a phase's time is up (about one per connection and phase).\n")
print(json.dumps(data["ratio_native_over_nio"]))
EOF
log "wrote $OUT/pod.md and $OUT/pod.json"
