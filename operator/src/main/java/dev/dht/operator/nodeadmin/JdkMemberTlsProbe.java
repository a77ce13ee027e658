package dev.dht.operator.nodeadmin;

import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.TlsContexts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * {@link MemberTlsProbe} with the JDK's TLS on a virtual thread per probe. Short timeouts, as for the movement
 * polls: a member that does not answer in time has not passed this round.
 */
public final class JdkMemberTlsProbe implements MemberTlsProbe {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    static final Duration READ_TIMEOUT = Duration.ofSeconds(3);
    private static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();

    @Override
    public CompletableFuture<Result> probe(
            String host, int port, String serverName, Credential client, List<X509Certificate> trusted) {
        return CompletableFuture.supplyAsync(() -> connect(host, port, serverName, client, trusted), THREADS);
    }

    static Result connect(String host, int port, String serverName, Credential client, List<X509Certificate> trusted) {
        Optional<X509Certificate> served = Optional.empty();
        try (var plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
            plain.setSoTimeout((int) READ_TIMEOUT.toMillis());
            var factory = TlsContexts.of(client, trusted).getSocketFactory();
            try (var tls = (SSLSocket) factory.createSocket(plain, serverName, port, true)) {
                var params = tls.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS"); // the member's certificate must name it
                tls.setSSLParameters(params);
                tls.startHandshake();
                Certificate[] chain = tls.getSession().getPeerCertificates();
                if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
                    served = Optional.of(x);
                }
                // Under TLS 1.3 a server that refuses the client's certificate says so only after the client's
                // handshake
                // ended: a request and its answer show that it accepted.
                tls.getOutputStream()
                        .write(("GET /v0/status HTTP/1.1\r\nHost: " + serverName + "\r\nConnection: close\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                tls.getOutputStream().flush();
                String line = firstLine(tls.getInputStream());
                if (!line.startsWith("HTTP/")) {
                    return new Result(
                            false, served, "no HTTP answer (" + (line.isEmpty() ? "connection closed" : line) + ")");
                }
                return new Result(true, served, "answered " + line);
            }
        } catch (SocketTimeoutException e) {
            return new Result(false, served, "timed out");
        } catch (SSLException e) {
            return new Result(false, served, "TLS refused: " + e.getMessage());
        } catch (IOException e) {
            return new Result(false, served, e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            return new Result(false, served, e.toString());
        }
    }

    private static String firstLine(InputStream in) throws IOException {
        var out = new StringBuilder();
        for (int c; out.length() < 200 && (c = in.read()) >= 0 && c != '\n'; ) {
            if (c != '\r') {
                out.append((char) c);
            }
        }
        return out.toString();
    }
}
