#!/usr/bin/env bash
# up.sh -> a real single-node Kubernetes on this host, with no registry (make k8s-up). Idempotent: what runs
# is left alone, what is missing is started, so a second run only checks.
#
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy (iptables), CoreDNS:
#       Kubernetes v1.34.4 and CoreDNS built from Go modules (scripts/kube-binaries.sh, cached)
#   containerd + runc + CNI plugins (bridge, host-local, portmap, loopback): Debian packages
#   kube-router v2.1.0 as the NetworkPolicy controller only (iptables + ipset beside the bridge CNI; built from Go
#       modules like the rest), checked once per start: a deny-all policy must block a probe pod (netpol-check.sh)
#   a dynamic volume provisioner (StorageClass dht-local, the default) and the pod sandbox image: small Go
#       programs of this project (scripts/k8s/provisioner, scripts/k8s/pause)
#   an S3-compatible object store for backups: versitygw on the host, http://dht-s3.default.svc:7070 from pods,
#       credentials in the Secret default/dht-s3 (scripts/k8s/s3.sh)
#   the dht images of build/images/*.tar imported into containerd (make images builds them)
#
# Everything lives under $DHT_K8S_DIR (default ~/.cache/dht/k8s): certificates, kubeconfig, etcd, volumes,
# logs/ (one file per component), pids/. Runtime sockets under /run/dht-k8s. Needs root (containerd, iptables,
# mounts) and a non-loopback IPv4 address. make k8s-down stops it and removes everything it made on the host.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

[ "$(uname -s)" = Linux ] || die "the local cluster runs on Linux only (on a Mac: make kind-up)"
[ "$(id -u)" = 0 ] || die "the local cluster needs root (containerd, iptables, mounts): run it with sudo"
START=$SECONDS
step() { log "$(printf '%3ss' $((SECONDS - START))) $*"; }

# ---------------------------------------------------------------------------------------------------------
# 1. Host packages (Debian) and binaries (Go modules, cached)
PACKAGES="containerd runc containernetworking-plugins iptables ipset conntrack openssl buildah ethtool"
missing=()
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "install ${missing[*]} (Debian package names)"
  step "installing ${missing[*]} from the Debian archive"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
fi
CNI_BIN_DIR=/usr/lib/cni
[ -x "$CNI_BIN_DIR/bridge" ] || die "CNI plugins not found in $CNI_BIN_DIR (package containernetworking-plugins)"

step "Kubernetes and CoreDNS binaries (scripts/kube-binaries.sh; ~10 min the first time, cached)"
KUBE_BIN_DIR=$("$DHT_ROOT/scripts/kube-binaries.sh" --bin-dir kube-apiserver kubectl etcd kube-controller-manager \
  kube-scheduler kubelet kube-proxy coredns crictl kube-router)

mkdir -p "$K8S_DIR" "$K8S_RUN" "$K8S_LOGS" "$K8S_PIDS" "$K8S_BIN" "$CNI_CONF_DIR" "$K8S_DIR/volumes"
chmod 700 "$K8S_DIR"

go_helper() { # go_helper NAME -> builds scripts/k8s/NAME into $K8S_BIN when its sources changed
  local name=$1 src="$DHT_ROOT/scripts/k8s/$1" sum
  sum=$(cat "$src"/*.go "$src"/go.mod "$src"/go.sum 2>/dev/null | sha256sum | cut -c1-12)
  if [ ! -x "$K8S_BIN/$name-$sum" ]; then
    command -v go >/dev/null || die "go is needed to build $name"
    step "building $name"
    rm -f "$K8S_BIN/$name"-*
    (cd "$src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -ldflags "-s -w" -o "$K8S_BIN/$name-$sum" . >&2)
  fi
  echo "$K8S_BIN/$name-$sum"
}
PAUSE_BIN=$(go_helper pause)
PROVISIONER_BIN=$(go_helper provisioner)

NODE_IP=$(node_ip)

# ---------------------------------------------------------------------------------------------------------
# 2. Certificates and kubeconfig (made once; the API server's certificate is remade if the host address changed)
PKI=$K8S_DIR/pki
mkdir -p "$PKI"
cert() { # cert NAME SUBJECT EXTENSIONS -> NAME.crt/.key signed by the cluster CA
  local name=$1 subject=$2 ext=$3
  openssl req -new -newkey rsa:2048 -nodes -keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "$subject" 2>/dev/null
  printf '%b\n' "$ext" > "$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 3650 \
    -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
  rm -f "$PKI/$name.csr"
}
if [ ! -f "$PKI/ca.crt" ]; then
  step "making the cluster's certificates"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -subj "/CN=dht-local-ca" 2>/dev/null
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  # One client identity for the admin and the components (a single-node development cluster).
  cert admin "/O=system:masters/CN=dht-admin" "extendedKeyUsage=clientAuth"
fi
api_sans="subjectAltName=IP:127.0.0.1,IP:$NODE_IP,IP:$API_SERVICE_IP,DNS:localhost,DNS:$NODE_NAME,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.$CLUSTER_DOMAIN"
if [ ! -f "$PKI/apiserver.crt" ] || [ "$(cat "$PKI/apiserver.sans" 2>/dev/null)" != "$api_sans" ]; then
  cert apiserver "/CN=kube-apiserver" "$api_sans\nextendedKeyUsage=serverAuth"
  echo "$api_sans" > "$PKI/apiserver.sans"
  if running kube-apiserver; then kill "$(cat "$K8S_PIDS/kube-apiserver.pid")"; fi
fi
if [ ! -f "$KUBECONFIG_FILE" ] || ! grep -q "server: https://$NODE_IP:$API_PORT" "$KUBECONFIG_FILE"; then
  cat > "$KUBECONFIG_FILE.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: dht-local
  cluster:
    server: https://$NODE_IP:$API_PORT
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: dht-admin
  user:
    client-certificate-data: $(base64 -w0 "$PKI/admin.crt")
    client-key-data: $(base64 -w0 "$PKI/admin.key")
contexts:
- name: dht-local
  context: {cluster: dht-local, user: dht-admin, namespace: default}
current-context: dht-local
EOF
  mv "$KUBECONFIG_FILE.tmp" "$KUBECONFIG_FILE"
  chmod 600 "$KUBECONFIG_FILE"
fi

# ---------------------------------------------------------------------------------------------------------
# 3. Configuration files
cat > "$K8S_DIR/containerd.toml" <<EOF
version = 2
root = "$CONTAINERD_ROOT"
state = "$K8S_RUN/containerd"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # This host may lack CAP_SYS_RESOURCE (VMs, nested containers): the kubelet's oom_score_adj of -998 for
  # sandboxes then fails with "can't get final child's PID from pipe"; never ask for less than the current one.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN_DIR"
    conf_dir = "$CNI_CONF_DIR"
EOF
cat > "$CNI_CONF_DIR/10-$CNI_NETWORK.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "$CNI_NETWORK", "plugins": [
  {"type": "bridge", "bridge": "$CNI_BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}},
  {"type": "loopback"}]}
EOF
cgroup_driver=cgroupfs
cgroup_v1=true
[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && cgroup_v1=false
cat > "$K8S_DIR/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: $cgroup_driver
failCgroupV1: false
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
failSwapOn: false
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: "$PKI/ca.crt"}}
authorization: {mode: Webhook}
clusterDomain: $CLUSTER_DOMAIN
clusterDNS: [$DNS_SERVICE_IP]
resolvConf: $K8S_DIR/resolv.conf
# A development host: evict only when really short, never garbage-collect the imported images (no registry
# to pull them back from).
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
# Mounted ConfigMaps and Secrets (the topology, certificates) reach a pod at its next sync: every minute by default,
# every 10 s here, so that make e2e waits less for each scale step and certificate rotation. The nodes do not depend
# on it: a member that sees a change late learns it from its peers (LaggingMemberScaleIT lags one by 30 s).
syncFrequency: 10s
EOF
# Pods resolve cluster names through CoreDNS only: this host's resolver may not be reachable from a pod.
echo "nameserver $DNS_SERVICE_IP" > "$K8S_DIR/resolv.conf"
cat > "$K8S_DIR/Corefile" <<EOF
.:$DNS_PORT {
    bind $NODE_IP
    errors
    kubernetes $CLUSTER_DOMAIN in-addr.arpa ip6.arpa {
        kubeconfig $KUBECONFIG_FILE dht-local
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
}
EOF

# ---------------------------------------------------------------------------------------------------------
# 4. Processes
start() { # start NAME CMD... -> runs CMD in the background (own session), pid and log under $K8S_DIR
  local name=$1; shift
  if running "$name"; then return 0; fi
  step "starting $name (log: $K8S_LOGS/$name.log)"
  setsid "$@" >>"$K8S_LOGS/$name.log" 2>&1 < /dev/null &
  echo $! > "$K8S_PIDS/$name.pid"
}
wait_for() { # wait_for WHAT SECONDS CMD... -> polls CMD until it succeeds, or fails with the log's tail
  local what=$1 limit=$2 deadline; shift 2
  deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then die "$what not ready after ${limit}s: see $K8S_LOGS"; fi
    sleep 0.5
  done
}
alive() { running "$1" || { tail -20 "$K8S_LOGS/$1.log" >&2; die "$1 exited: see $K8S_LOGS/$1.log"; }; }

modprobe br_netfilter 2>/dev/null || true
modprobe overlay 2>/dev/null || true
sysctl -qw net.ipv4.ip_forward=1
[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ] && sysctl -qw net.bridge.bridge-nf-call-iptables=1

start containerd containerd --config "$K8S_DIR/containerd.toml"
wait_for containerd 30 ctr --address "$CONTAINERD_SOCK" version
alive containerd

start etcd "$(kube_bin etcd)" --name dht-local --data-dir "$K8S_DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-cluster "dht-local=http://127.0.0.1:$((ETCD_PORT + 1))" --listen-metrics-urls "" --log-level warn

start kube-apiserver "$(kube_bin kube-apiserver)" --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --bind-address "$NODE_IP" --advertise-address "$NODE_IP" --secure-port "$API_PORT" \
  --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" --client-ca-file "$PKI/ca.crt" \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-account-issuer "https://kubernetes.default.svc.$CLUSTER_DOMAIN" \
  --service-cluster-ip-range "$SERVICE_CIDR" --authorization-mode Node,RBAC --allow-privileged=true \
  --kubelet-client-certificate "$PKI/admin.crt" --kubelet-client-key "$PKI/admin.key" \
  --kubelet-preferred-address-types InternalIP,Hostname --cert-dir "$K8S_DIR/apiserver-certs" \
  --enable-priority-and-fairness=false
wait_for kube-apiserver 90 kctl get --raw /readyz
alive kube-apiserver

start kube-controller-manager "$(kube_bin kube-controller-manager)" --kubeconfig "$KUBECONFIG_FILE" \
  --authentication-kubeconfig "$KUBECONFIG_FILE" --authorization-kubeconfig "$KUBECONFIG_FILE" \
  --bind-address 127.0.0.1 --secure-port 10257 --leader-elect=false --use-service-account-credentials \
  --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
  --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
  --service-cluster-ip-range "$SERVICE_CIDR" --cert-dir "$K8S_DIR/kcm-certs" \
  --controllers '*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller'
start kube-scheduler "$(kube_bin kube-scheduler)" --kubeconfig "$KUBECONFIG_FILE" \
  --authentication-kubeconfig "$KUBECONFIG_FILE" --authorization-kubeconfig "$KUBECONFIG_FILE" \
  --bind-address 127.0.0.1 --secure-port 10259 --leader-elect=false

# The sandbox image: the kubelet never pulls it (no registry), containerd must already hold it.
if ! ctr --address "$CONTAINERD_SOCK" -n k8s.io images check "name==$PAUSE_IMAGE" 2>/dev/null | grep -q "$PAUSE_IMAGE"; then
  step "importing the pod sandbox image $PAUSE_IMAGE"
  work=$(mktemp -d)
  c=$(buildah from scratch)
  buildah copy --quiet "$c" "$PAUSE_BIN" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 "$c"
  buildah commit --quiet --rm "$c" "$PAUSE_IMAGE" >/dev/null
  buildah push --quiet "$PAUSE_IMAGE" "docker-archive:$work/pause.tar:$PAUSE_IMAGE" >/dev/null
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import --no-unpack "$work/pause.tar" >/dev/null
  rm -rf "$work"
fi

mkdir -p "$KUBELET_ROOT"
start kubelet "$(kube_bin kubelet)" --config "$K8S_DIR/kubelet.yaml" --kubeconfig "$KUBECONFIG_FILE" \
  --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --root-dir "$KUBELET_ROOT" --cert-dir "$K8S_DIR/kubelet-certs"
start kube-proxy "$(kube_bin kube-proxy)" --kubeconfig "$KUBECONFIG_FILE" --hostname-override "$NODE_NAME" \
  --cluster-cidr "$POD_CIDR" --proxy-mode iptables --conntrack-max-per-core 0 \
  --metrics-bind-address 127.0.0.1:10249 --healthz-bind-address 127.0.0.1:10256
start coredns "$(kube_bin coredns)" -conf "$K8S_DIR/Corefile"
start provisioner "$PROVISIONER_BIN" --kubeconfig "$KUBECONFIG_FILE" --root "$K8S_DIR/volumes" --node "$NODE_NAME"

wait_for "node $NODE_NAME" 120 kctl wait --for=condition=Ready "node/$NODE_NAME" --timeout=2s
# NetworkPolicies: started only once the kubelet has registered the Node (kube-router looks its node up at start
# and exits without it, on a busy machine the kubelet can take a while), and waited for before this script returns:
# nothing makes pods until then (the images and the enforcement check below come after it). The bridge CNI
# enforces none: kube-router's firewall alone (no routing, no service proxy, no CNI) filters the pods' ingress with
# iptables and ipsets, physdev rules for the bridge; kube-proxy stays the proxy. --v=1 logs each sync's start and
# length: the attack step of make e2e matches a connection a policy let through against them.
start kube-router "$(kube_bin kube-router)" --kubeconfig "$KUBECONFIG_FILE" --hostname-override "$NODE_NAME" \
  --run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false --enable-pod-egress=false \
  --service-cluster-ip-range "$SERVICE_CIDR" --health-port 20244 --metrics-port 0 --v=1
# Healthy once its controllers run (it answers 500 before). A process that died ends the wait at once and alive
# below says so with its log (alive inside wait_for would die with its words sent to /dev/null).
router_healthy() { ! running kube-router || curl -sf -o /dev/null --max-time 2 http://127.0.0.1:20244/healthz; }
wait_for kube-router 120 router_healthy
for c in kube-controller-manager kube-scheduler kubelet kube-proxy coredns kube-router provisioner; do alive "$c"; done

# ---------------------------------------------------------------------------------------------------------
# 5. Cluster objects: DNS Service (CoreDNS runs on the host), the default StorageClass
kctl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: $DNS_SERVICE_IP
  ports: [{name: dns, port: 53, protocol: UDP, targetPort: $DNS_PORT}, {name: dns-tcp, port: 53, protocol: TCP, targetPort: $DNS_PORT}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: kube-dns-host, namespace: kube-system, labels: {kubernetes.io/service-name: kube-dns}}
addressType: IPv4
ports: [{name: dns, port: $DNS_PORT, protocol: UDP}, {name: dns-tcp, port: $DNS_PORT, protocol: TCP}]
endpoints: [{addresses: ["$NODE_IP"]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: dht-local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: dht.dev/local
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
EOF

# The object store backups go to (scripts/k8s/s3.sh)
. "$DHT_ROOT/scripts/k8s/s3.sh"
s3_start "$NODE_IP"

# ---------------------------------------------------------------------------------------------------------
# 6. The project's images
"$DHT_ROOT/scripts/k8s/load-images.sh"

# Enforcement is checked once per kube-router process (a second make k8s-up with the same one skips it).
if [ "$(cat "$K8S_DIR/netpol-checked" 2>/dev/null)" != "$(cat "$K8S_PIDS/kube-router.pid")" ]; then
  step "checking that NetworkPolicies are enforced"
  KUBE_BIN_DIR=$KUBE_BIN_DIR "$DHT_ROOT/scripts/k8s/netpol-check.sh"
  cat "$K8S_PIDS/kube-router.pid" > "$K8S_DIR/netpol-checked"
fi

# Started through sudo: the kubeconfig belongs to the user who asked.
if [ -n "${SUDO_UID:-}" ]; then chown "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$KUBECONFIG_FILE"; fi
step "ready: export KUBECONFIG=$KUBECONFIG_FILE"
echo "$KUBECONFIG_FILE"
