package dev.dht.node.objectstore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The S3 calls backups need (put, get, head, list, delete, create bucket), signed with SigV4, over HTTP/1.1 on
 * blocking sockets ({@link Http1Transport}: the JDK's HttpClient made the JIT compile hundreds of methods at a node's
 * first backup, beside the live load). No jars: the AWS SDK v2 brings 32-46 of them, 8.6-15 MB; MinIO's client 22
 * jars, 22 MB (docs/operations.md, "Back up and restore"). Every call is idempotent (objects are named by content or
 * by backup), so failures without an answer, 5xx and 429 are retried with backoff; other errors fail at once with
 * S3's code and message.
 */
public final class S3Client {
    private static final Logger log = LoggerFactory.getLogger(S3Client.class);
    static final int ATTEMPTS = 5;
    private static final long FIRST_BACKOFF_MS = 250;

    private final S3Location location;
    private final Supplier<Credentials> credentials;
    private final Http1Transport http;
    private final Duration timeout;

    /** One listed object. */
    public record ObjectInfo(String path, long size, Instant lastModified) {
    }

    public S3Client(S3Location location, Supplier<Credentials> credentials, Duration timeout) {
        this.location = location;
        this.credentials = credentials;
        this.timeout = timeout;
        this.http = new Http1Transport(location.endpoint(), location.pathStyle() ? location.endpoint().getHost()
                : location.bucket() + "." + location.endpoint().getHost(), Duration.ofSeconds(5));
    }

    public S3Location location() {
        return location;
    }

    /** Creates the bucket unless it exists (tests, the local cluster's store). */
    public void ensureBucket() {
        Reply head = call("HEAD", null, Map.of(), Body.EMPTY, Duration.ofSeconds(30));
        if (head.status == 200) {
            return;
        }
        if (head.status != 404) {
            throw head.error("HEAD bucket " + location.bucket());
        }
        Reply created = call("PUT", null, Map.of(), Body.EMPTY, Duration.ofSeconds(30));
        if (created.status != 200 && !"BucketAlreadyOwnedByYou".equals(created.code())) {
            throw created.error("create bucket " + location.bucket());
        }
    }

    /** Size of the object at path (under the prefix), or -1 if there is none. */
    public long size(String path) {
        Reply r = call("HEAD", location.key(path), Map.of(), Body.EMPTY, timeout);
        if (r.status == 404) {
            return -1;
        }
        if (r.status != 200) {
            throw r.error("HEAD " + path);
        }
        return r.contentLength;
    }

    public boolean exists(String path) {
        return size(path) >= 0;
    }

    /** A small object from memory (manifests), its payload hash signed. */
    public void put(String path, byte[] content) {
        Reply r = call("PUT", location.key(path), Map.of(), Body.of(content), timeout);
        if (r.status != 200) {
            throw r.error("PUT " + path);
        }
    }

    /**
     * A streamed object: {@code open} gives its bytes (again on a retry), exactly {@code length} of them. The
     * payload is sent unsigned (the caller verifies what it reads back, by content name or GCM tag). The timeout
     * grows with the length at the throttle's rate.
     */
    public void put(String path, long length, IoSupplier open, Throttle throttle) {
        long seconds = 60 + (throttle.bytesPerSecond() > 0 ? 2 * length / throttle.bytesPerSecond() : length >> 22);
        Reply r = call("PUT", location.key(path), Map.of(), Body.stream(open, length, throttle),
                Duration.ofSeconds(seconds));
        if (r.status != 200) {
            throw r.error("PUT " + path);
        }
    }

    /** A small object into memory; null if there is none. */
    public byte[] get(String path) {
        Reply r = call("GET", location.key(path), Map.of(), Body.EMPTY, timeout);
        if (r.status == 404) {
            return null;
        }
        if (r.status != 200) {
            throw r.error("GET " + path);
        }
        return r.body;
    }

    /** Streams an object (the caller closes the stream); ObjectStoreException 404 if there is none. */
    public InputStream open(String path) {
        ObjectStoreException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                Http1Transport.Response response = send("GET", location.key(path), Map.of(), SigV4.EMPTY_SHA256,
                        Body.EMPTY, Duration.ofMinutes(10));
                if (response.status() == 200) {
                    return response.body();
                }
                byte[] error;
                try (InputStream in = response.body()) {
                    error = in.readAllBytes();
                }
                last = new Reply(response.status(), error, 0).error("GET " + path);
            } catch (IOException | UncheckedIOException e) {
                last = new ObjectStoreException("GET " + path + " from " + location + ": " + e, e);
            }
            if (!last.retryable() || !backoff(attempt)) {
                throw last;
            }
        }
        throw last;
    }

    /**
     * One LIST of at most one key under the prefix: whether the bucket is there and the credentials are taken.
     *
     * @throws ObjectStoreException with S3's code when not
     */
    public void probe() {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("list-type", "2");
        query.put("max-keys", "1");
        query.put("prefix", location.key(""));
        Reply r = call("GET", null, query, Body.EMPTY, timeout);
        if (r.status != 200) {
            throw r.error("LIST " + location);
        }
    }

    /** Every object whose path starts with pathPrefix, in key order (all pages). */
    public List<ObjectInfo> list(String pathPrefix) {
        List<ObjectInfo> out = new ArrayList<>();
        String token = null;
        do {
            Map<String, String> query = new LinkedHashMap<>();
            query.put("list-type", "2");
            query.put("prefix", location.key(pathPrefix));
            if (token != null) {
                query.put("continuation-token", token);
            }
            Reply r = call("GET", null, query, Body.EMPTY, timeout);
            if (r.status != 200) {
                throw r.error("LIST " + pathPrefix);
            }
            Element root = xml(r.body).getDocumentElement();
            NodeList contents = root.getElementsByTagName("Contents");
            for (int i = 0; i < contents.getLength(); i++) {
                Element c = (Element) contents.item(i);
                String lastModified = text(c, "LastModified");
                out.add(new ObjectInfo(location.path(text(c, "Key")), Long.parseLong(text(c, "Size")),
                        lastModified == null ? Instant.EPOCH : Instant.parse(lastModified)));
            }
            token = "true".equals(text(root, "IsTruncated")) ? text(root, "NextContinuationToken") : null;
        } while (token != null);
        return out;
    }

    /** Deletes the object (S3 answers 204 whether or not it existed). */
    public void delete(String path) {
        Reply r = call("DELETE", location.key(path), Map.of(), Body.EMPTY, timeout);
        if (r.status != 204 && r.status != 200 && r.status != 404) {
            throw r.error("DELETE " + path);
        }
    }

    // ---- plumbing ------------------------------------------------------------------------------------------

    /** Opens a fresh stream of an upload's bytes (every attempt reads from the start). */
    @FunctionalInterface
    public interface IoSupplier {
        InputStream open() throws IOException;
    }

    private record Body(byte[] bytes, IoSupplier stream, long length, Throttle throttle)
            implements Http1Transport.Body {
        static final Body EMPTY = new Body(new byte[0], null, 0, null);

        static Body of(byte[] bytes) {
            return new Body(bytes, null, bytes.length, null);
        }

        static Body stream(IoSupplier open, long length, Throttle throttle) {
            return length == 0 ? EMPTY : new Body(null, open, length, throttle);
        }

        String sha256() {
            return bytes == null ? SigV4.UNSIGNED_PAYLOAD : SigV4.sha256Hex(bytes);
        }

        @Override
        public InputStream open() throws IOException {
            return bytes != null ? new ByteArrayInputStream(bytes) : new ThrottledInput(stream.open(), throttle);
        }
    }

    private record Reply(int status, byte[] body, long contentLength) {
        String code() {
            return xmlField("Code");
        }

        String xmlField(String name) {
            if (body == null || body.length == 0) {
                return null;
            }
            try {
                return text(xml(body).getDocumentElement(), name);
            } catch (RuntimeException e) {
                return null;
            }
        }

        ObjectStoreException error(String what) {
            String code = code();
            String message = xmlField("Message");
            return new ObjectStoreException(what + ": HTTP " + status + (code == null ? "" : " " + code)
                    + (message == null ? "" : " (" + message + ")"), status, code);
        }
    }

    private Reply call(String method, String key, Map<String, String> query, Body body, Duration callTimeout) {
        ObjectStoreException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                Http1Transport.Response response = send(method, key, query, body.sha256(), body, callTimeout);
                byte[] content;
                try (InputStream in = response.body()) {
                    content = in.readAllBytes();
                }
                Reply reply = new Reply(response.status(), content, response.contentLength());
                if (reply.status < 500 && reply.status != 429) {
                    return reply;
                }
                last = reply.error(method + " " + (key == null ? location.bucket() : key));
            } catch (IOException | UncheckedIOException e) {
                last = new ObjectStoreException(method + " " + (key == null ? location.bucket() : key) + " at "
                        + location.endpoint() + ": " + e, e);
            }
            if (!last.retryable() || !backoff(attempt)) {
                throw last;
            }
        }
        throw last;
    }

    private boolean backoff(int attempt) {
        if (attempt >= ATTEMPTS) {
            return false;
        }
        long ms = FIRST_BACKOFF_MS << (attempt - 1);
        log.debug("object store call failed, attempt {} of {}; next in {} ms", attempt, ATTEMPTS, ms);
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Http1Transport.Response send(String method, String key, Map<String, String> query,
                                         String payloadSha256, Body body, Duration callTimeout) throws IOException {
        URI endpoint = location.endpoint();
        String host = endpoint.getHost();
        String path;
        if (location.pathStyle()) {
            path = "/" + location.bucket() + (key == null ? "" : "/" + SigV4.encode(key, false));
        } else {
            host = location.bucket() + "." + host;
            path = "/" + (key == null ? "" : SigV4.encode(key, false));
        }
        int port = endpoint.getPort();
        boolean defaultPort = port == -1 || port == 80 && "http".equals(endpoint.getScheme())
                || port == 443 && "https".equals(endpoint.getScheme());
        // Host is host[:port], the port only when it is not the scheme's default, and signed as sent.
        String hostHeader = defaultPort ? host : host + ":" + port;
        String canonicalQuery = SigV4.canonicalQuery(query);
        Map<String, String> signed = SigV4.sign(method, hostHeader, path, query, payloadSha256, credentials.get(),
                location.region(), ZonedDateTime.now());
        return http.exchange(method, path + (canonicalQuery.isEmpty() ? "" : "?" + canonicalQuery), hostHeader,
                signed, body, callTimeout);
    }

    static Document xml(byte[] body) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            return f.newDocumentBuilder().parse(new ByteArrayInputStream(body));
        } catch (Exception e) {
            throw new ObjectStoreException("not an S3 XML answer: "
                    + new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8), 0, "BadXml");
        }
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
    }

    /** An upload's bytes through the throttle. */
    private static final class ThrottledInput extends InputStream {
        private final InputStream in;
        private final Throttle throttle;

        ThrottledInput(InputStream in, Throttle throttle) {
            this.in = in;
            this.throttle = throttle;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, Math.min(len, 64 << 10));
            if (n > 0 && throttle != null) {
                try {
                    throttle.take(n);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
