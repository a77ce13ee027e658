# Shared by scripts/k8s/*.sh: where the local cluster lives and how its processes are found.
# Source after scripts/lib.sh.

K8S_DIR=${DHT_K8S_DIR:-$DHT_CACHE/k8s}        # state: pki, kubeconfig, etcd, volumes, logs, pids
K8S_RUN=${DHT_K8S_RUN:-/run/dht-k8s}          # runtime: sockets, containerd state
K8S_LOGS=$K8S_DIR/logs
K8S_PIDS=$K8S_DIR/pids
K8S_BIN=$K8S_DIR/bin                          # project-built helpers (pause, provisioner)
KUBECONFIG_FILE=$K8S_DIR/kubeconfig
KUBELET_ROOT=$K8S_DIR/kubelet
CONTAINERD_ROOT=$K8S_DIR/containerd
CONTAINERD_SOCK=$K8S_RUN/containerd.sock
CNI_CONF_DIR=$K8S_DIR/cni
CNI_NETWORK=dht-k8s
CNI_BRIDGE=dht-cni0
NODE_NAME=${DHT_K8S_NODE_NAME:-dht-local}
SERVICE_CIDR=${DHT_K8S_SERVICE_CIDR:-10.96.0.0/16}
API_SERVICE_IP=${DHT_K8S_API_SERVICE_IP:-10.96.0.1}
DNS_SERVICE_IP=${DHT_K8S_DNS_SERVICE_IP:-10.96.0.10}
POD_CIDR=${DHT_K8S_POD_CIDR:-10.244.0.0/24}
CLUSTER_DOMAIN=cluster.local
ETCD_PORT=${DHT_K8S_ETCD_PORT:-23790}
API_PORT=${DHT_K8S_API_PORT:-6443}
DNS_PORT=1053
PAUSE_IMAGE=localhost/dht-pause:1

# Components in start order; stopped in reverse.
COMPONENTS="containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy coredns kube-router provisioner s3"

running() { # running NAME -> 0 if its recorded process is alive
  local pid
  [ -f "$K8S_PIDS/$1.pid" ] || return 1
  pid=$(cat "$K8S_PIDS/$1.pid")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

node_ip() { # the host address pods and the API server's clients use (not loopback)
  local ip
  ip=$(ip -4 route get 1.1.1.1 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "src") {print $(i + 1); exit}}')
  [ -n "$ip" ] || ip=$(ip -4 -o addr show scope global 2>/dev/null | awk '$2 != "'"$CNI_BRIDGE"'" {split($4, a, "/"); print a[1]; exit}')
  [ -n "$ip" ] || die "no non-loopback IPv4 address on this host: the kubelet needs one"
  echo "$ip"
}

kube_bin() { echo "$KUBE_BIN_DIR/$1"; }

kctl() { "$(kube_bin kubectl)" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
