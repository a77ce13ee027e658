package dev.dht.operator.nodeadmin;

import dev.dht.operator.security.pki.Credential;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A look at a member's member port over mutual TLS, the way a peer connects: which certificate it serves, and
 * whether it accepts the client certificate offered. The operator uses it during a CA replacement to see that every
 * member reloaded the files of the previous phase before it starts the next.
 */
public interface MemberTlsProbe {
    /**
     * @param answered the member accepted the client certificate and answered an HTTP request on the connection
     * @param served the certificate the member presented, if the handshake got that far
     * @param detail what happened, for the status ("answered 200", "refused the client certificate", "timed out")
     */
    record Result(boolean answered, Optional<X509Certificate> served, String detail) {}

    /**
     * Connects to {@code host:port}, presents {@code client}, trusts {@code trusted} and checks that the server's
     * certificate names {@code serverName} (the member's DNS name, as its peers check it), then sends one
     * {@code GET /v0/status}. Never fails: problems are in the result.
     */
    CompletableFuture<Result> probe(
            String host, int port, String serverName, Credential client, List<X509Certificate> trusted);
}
