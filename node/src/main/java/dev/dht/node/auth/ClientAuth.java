package dev.dht.node.auth;

import dev.dht.node.config.FilePoller;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import one.nio.http.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer tokens on the client port ({@code --auth-tokens FILE}, docs/security.md): every request but
 * {@code /v0/status} needs {@code Authorization: Bearer <token>} of a scope that allows it; 401 without a token or
 * with an unknown one, 403 when its scope does not allow the request. The file is re-read when its content
 * changes; a file that does not parse keeps the tokens in force (and says so in the log).
 */
public final class ClientAuth implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClientAuth.class);
    private static final String AUTHORIZATION = "Authorization:";
    private static final String BEARER = "Bearer ";

    private final Path file;
    private volatile Tokens tokens;
    private final java.util.concurrent.atomic.AtomicLong rejectedFiles = new java.util.concurrent.atomic.AtomicLong();
    private final FilePoller poller;

    private ClientAuth(Path file, Tokens tokens, byte[] content, Duration interval) {
        this.file = file;
        this.tokens = tokens;
        this.poller = new FilePoller(
                "dht-auth-tokens", List.of(file), List.of(content), interval, contents -> reload(contents.get(0)));
    }

    /**
     * Reads the tokens file and watches it. IOException if it cannot be read, IllegalArgumentException if it does
     * not parse or holds no token: a node asked to check tokens does not start without any.
     */
    public static ClientAuth open(Path file, Duration interval) throws IOException {
        byte[] content = FilePoller.read(List.of(file)).get(0);
        Tokens tokens;
        try {
            tokens = Tokens.parse(new String(content, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--auth-tokens " + file + ": " + e.getMessage(), e);
        }
        if (tokens.size() == 0) {
            throw new IllegalArgumentException("--auth-tokens " + file + " holds no token");
        }
        log.info("client tokens from {}: {} valid", file, tokens.size());
        return new ClientAuth(file, tokens, content, interval);
    }

    private void reload(byte[] content) {
        try {
            Tokens next = Tokens.parse(new String(content, StandardCharsets.UTF_8));
            if (next.size() == 0) {
                rejectedFiles.incrementAndGet();
                log.warn("tokens file {} holds no token: ignored, keeping {} tokens", file, tokens.size());
                return;
            }
            tokens = next;
            log.info("tokens file {} changed: {} valid tokens", file, next.size());
        } catch (IllegalArgumentException e) {
            rejectedFiles.incrementAndGet();
            log.warn("tokens file {} ignored, keeping {} tokens: {}", file, tokens.size(), e.getMessage());
        }
    }

    /** Changed tokens files that were ignored (they did not parse, or held no token). */
    public long rejectedFiles() {
        return rejectedFiles.get();
    }

    /** Tokens in force. */
    public int size() {
        return tokens.size();
    }

    /** The request's bearer token: whether it sends one, and its scope if the token is valid (else null). */
    public record Presented(boolean sent, Scope scope) {
        static final Presented NONE = new Presented(false, null);
    }

    /** What bearer token the request carries, and what it is worth. */
    public Presented token(Request request) {
        String header = request.getHeader(AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Presented.NONE;
        }
        return new Presented(
                true, tokens.scopeOf(header.substring(BEARER.length()).strip()));
    }

    /** The scope a client-port request needs, or null for what stays open (/v0/status, for probes). */
    public static Scope required(Request request, boolean privileged) {
        if (privileged) {
            return Scope.ADMIN;
        }
        String path = request.getPath();
        if (path.equals("/v0/status")) {
            return null;
        }
        int method = request.getMethod();
        if (path.equals("/v0/entity") && (method == Request.METHOD_PUT || method == Request.METHOD_DELETE)) {
            return Scope.READ_WRITE;
        }
        return Scope.READ_ONLY;
    }

    @Override
    public void close() {
        poller.close();
    }
}
