# s3.sh -> the local cluster's object store (sourced by up.sh and down.sh): versitygw v1.8.0 (scripts/tool.sh, built
# from its Go module and cached) as a host process on the node's address, reachable from pods as
# http://dht-s3.default.svc:7070 (a Service whose EndpointSlice points at the host, as CoreDNS's does), objects as
# plain files under $K8S_DIR/s3/data. Random root credentials are made once ($K8S_DIR/s3/credentials) and put into
# the Secret default/dht-s3 (keys AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); the bucket dht-backups exists.
# DhtClusters name them in spec.backup (docs/operations.md, "Back up and restore").

S3_PORT=${DHT_K8S_S3_PORT:-7070}
S3_DIR=$K8S_DIR/s3
S3_BUCKET=dht-backups

s3_start() { # s3_start NODE_IP
  local ip=$1 bin key secret
  bin=$(DHT_CACHE_DIR="$DHT_CACHE" "$DHT_ROOT/scripts/tool.sh" versitygw)
  mkdir -p "$S3_DIR/data"
  chmod 700 "$S3_DIR"
  if [ ! -f "$S3_DIR/credentials" ]; then
    printf 'AWS_ACCESS_KEY_ID=dht-%s\nAWS_SECRET_ACCESS_KEY=%s\n' "$(openssl rand -hex 6)" "$(openssl rand -hex 24)" \
      > "$S3_DIR/credentials"
    chmod 600 "$S3_DIR/credentials"
  fi
  key=$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$S3_DIR/credentials")
  secret=$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' "$S3_DIR/credentials")
  if ! running s3; then
    step "starting s3 (versitygw on $ip:$S3_PORT, log: $K8S_LOGS/s3.log)"
    ROOT_ACCESS_KEY=$key ROOT_SECRET_KEY=$secret setsid "$bin" --port "$ip:$S3_PORT" posix "$S3_DIR/data" \
      >>"$K8S_LOGS/s3.log" 2>&1 < /dev/null &
    echo $! > "$K8S_PIDS/s3.pid"
  fi
  # The bucket (an S3 call: versitygw keeps a bucket's owner with it). curl signs; versitygw wants the payload hash.
  wait_for s3 30 curl -sf -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" --user "$key:$secret" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://$ip:$S3_PORT/"
  curl -s -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" --user "$key:$secret" -X PUT \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://$ip:$S3_PORT/$S3_BUCKET"
  kctl apply -f - >/dev/null <<EOS
apiVersion: v1
kind: Service
metadata: {name: dht-s3, namespace: default, labels: {app.kubernetes.io/name: dht-s3}}
spec:
  ports: [{name: s3, port: $S3_PORT, protocol: TCP, targetPort: $S3_PORT}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: dht-s3-host, namespace: default, labels: {kubernetes.io/service-name: dht-s3}}
addressType: IPv4
ports: [{name: s3, port: $S3_PORT, protocol: TCP}]
endpoints: [{addresses: ["$ip"]}]
---
apiVersion: v1
kind: Secret
metadata: {name: dht-s3, namespace: default, labels: {app.kubernetes.io/name: dht-s3}}
type: Opaque
stringData: {AWS_ACCESS_KEY_ID: "$key", AWS_SECRET_ACCESS_KEY: "$secret"}
EOS
}

s3_stop() {
  stop s3
  rm -rf "$S3_DIR/data"
}
