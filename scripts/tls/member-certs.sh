#!/usr/bin/env bash
# member-certs.sh DIR [DAYS] -> a CA and one member certificate for the member port's mutual TLS, with only the
# JDK's keytool (no openssl needed): DIR/ca.crt, DIR/tls.crt, DIR/tls.key (PKCS#8), and the CA's keystore
# DIR/ca.p12 to issue more. Every member may use the same certificate: members are not told apart by name, any
# holder of a certificate of this CA is one (docs/security.md), so keep the CA to one cluster.
#
#   scripts/tls/member-certs.sh /tmp/member-tls
#   java -jar node/target/dht-node.jar ... --member-tls-cert /tmp/member-tls/tls.crt \
#     --member-tls-key /tmp/member-tls/tls.key --member-tls-ca /tmp/member-tls/ca.crt
. "$(dirname "$0")/../lib.sh"

DIR=${1:?usage: member-certs.sh DIR [DAYS]}
DAYS=${2:-30}
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found"
KEYTOOL="$JAVA_HOME/bin/keytool"
PASS=member-tls # the keystores are working files; the PEM key below is what the node reads (keep it private)

mkdir -p "$DIR"
rm -f "$DIR/ca.p12" "$DIR/member.p12"
"$KEYTOOL" -genkeypair -alias ca -keyalg EC -groupname secp256r1 -dname "CN=dht member CA" -ext bc:c \
  -validity "$DAYS" -keystore "$DIR/ca.p12" -storetype PKCS12 -storepass "$PASS" 2>/dev/null
"$KEYTOOL" -exportcert -rfc -alias ca -keystore "$DIR/ca.p12" -storepass "$PASS" > "$DIR/ca.crt"
"$KEYTOOL" -genkeypair -alias member -keyalg EC -groupname secp256r1 -dname "CN=dht member" \
  -validity "$DAYS" -keystore "$DIR/member.p12" -storetype PKCS12 -storepass "$PASS" 2>/dev/null
"$KEYTOOL" -certreq -alias member -keystore "$DIR/member.p12" -storepass "$PASS" \
  | "$KEYTOOL" -gencert -rfc -alias ca -keystore "$DIR/ca.p12" -storepass "$PASS" -validity "$DAYS" \
      -ext ku:c=digitalSignature -ext eku=serverAuth,clientAuth -ext san=dns:localhost,ip:127.0.0.1 \
  > "$DIR/tls.crt"
(umask 077; "$JAVA_HOME/bin/java" "$(dirname "$0")/Pkcs8.java" "$DIR/member.p12" "$PASS" member > "$DIR/tls.key")
rm -f "$DIR/member.p12"
log "member TLS files in $DIR: tls.crt, tls.key, ca.crt (valid $DAYS days)"
