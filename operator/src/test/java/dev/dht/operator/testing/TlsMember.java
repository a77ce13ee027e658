package dev.dht.operator.testing;

import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.TlsContexts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.net.ssl.SSLSocket;

/**
 * Stands in for a node's member port (or its client port with client certificates): mutual TLS on loopback with the
 * JDK (client certificate required), answering any request with 200. Each connection reads its certificate, key and
 * trusted CAs from {@code files}, as a node that reloads its files does; a test can {@link #freeze} it on what it holds now (a node that has not reloaded yet).
 */
public final class TlsMember implements AutoCloseable {
    /** What the member's files hold: its certificate and key, and the CAs it trusts. */
    public record Files(Credential credential, List<X509Certificate> trusted) {}

    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Supplier<Files> files;
    private volatile Files frozen;
    private volatile int answered;
    private volatile String lastClient;

    public TlsMember(Supplier<Files> files) {
        this.files = files;
        try {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.submit(this::acceptLoop);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Keeps serving what the files hold now, whatever they change to (until {@link #thaw}). */
    public void freeze() {
        frozen = files.get();
    }

    public void thaw() {
        frozen = null;
    }

    /** Requests answered over an accepted mutual TLS connection. */
    public int answered() {
        return answered;
    }

    /** The subject of the client certificate of the last request answered (RFC 2253), or null. */
    public String lastClient() {
        return lastClient;
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket plain = listener.accept();
                threads.submit(() -> serve(plain));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket plain) {
        try (plain) {
            var now = frozen != null ? frozen : files.get();
            if (now == null) {
                return; // no files yet: a node that cannot serve TLS closes
            }
            var context = TlsContexts.of(now.credential(), now.trusted());
            try (var tls = (SSLSocket) context.getSocketFactory().createSocket(plain, null, plain.getPort(), true)) {
                tls.setUseClientMode(false);
                tls.setNeedClientAuth(true);
                tls.setSoTimeout(5000);
                InputStream in = tls.getInputStream();
                int previous = -1;
                for (int c; (c = in.read()) >= 0; previous = c) {
                    if (c == '\n' && previous == '\r') {
                        int next = in.read();
                        if (next == '\r') {
                            break; // end of the request head
                        }
                    }
                }
                tls.getOutputStream()
                        .write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                tls.getOutputStream().flush();
                if (tls.getSession().getPeerCertificates()[0] instanceof X509Certificate c) {
                    lastClient = c.getSubjectX500Principal().getName();
                }
                answered++;
            }
        } catch (IOException | RuntimeException e) {
            // a refused handshake: the client sees it
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        threads.shutdownNow();
    }
}
