#!/usr/bin/env bash
# client-certs.sh DIR [DAYS] -> TLS for the client port of nodes on this machine, with only the JDK's keytool: a CA
# (DIR/ca.crt, its keystore DIR/ca.p12 to issue more), the nodes' certificate for localhost and 127.0.0.1
# (DIR/tls.crt, DIR/tls.key), and a client certificate of scope read-write (DIR/client.crt, DIR/client.key: its
# subject's O names the scope, docs/security.md). `make run TLS=1` makes them under data/tls once and reuses them.
#
#   scripts/tls/client-certs.sh /tmp/client-tls
#   java -jar node/target/dht-node.jar ... --client-tls-cert /tmp/client-tls/tls.crt \
#     --client-tls-key /tmp/client-tls/tls.key --client-tls-ca /tmp/client-tls/ca.crt
#   curl --cacert /tmp/client-tls/ca.crt --cert /tmp/client-tls/client.crt --key /tmp/client-tls/client.key \
#     https://localhost:8080/v0/entity?id=k1
. "$(dirname "$0")/../lib.sh"

TLS_DIR=${1:?usage: client-certs.sh DIR [DAYS]}
TLS_DAYS=${2:-365}
TLS_PASS=client-tls
. "$(dirname "$0")/lib.sh"

mkdir -p "$TLS_DIR"
tls_ca "CN=dht client CA"
tls_issue tls "CN=localhost" eku=serverAuth san=dns:localhost,ip:127.0.0.1
tls_issue client "CN=dht client, O=read-write" eku=clientAuth
log "client TLS files in $TLS_DIR: ca.crt; the nodes' tls.crt, tls.key; a read-write client.crt, client.key (valid $TLS_DAYS days)"
