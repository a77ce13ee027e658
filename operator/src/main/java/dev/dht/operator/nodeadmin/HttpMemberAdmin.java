package dev.dht.operator.nodeadmin;

import dev.dht.operator.repair.MemberRepair;
import dev.dht.operator.rollout.MemberHints;
import dev.dht.operator.scaling.MemberMovement;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * {@link MemberAdmin} over HTTP with the JDK client. Short timeouts: the reconcile that polls waits for the
 * answers, and a member that does not answer within them is "unknown" for this round (the next round asks again).
 */
public final class HttpMemberAdmin implements MemberAdmin {
    public static final String MOVEMENT_PATH = "/v0/admin/movement";
    public static final String REPAIR_PATH = "/v0/admin/repair";
    public static final String METRICS_PATH = "/metrics";
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
    /** Longer answers are not the contract's (a few hundred bytes); cut them in problem texts. */
    private static final int MAX_PROBLEM_BODY = 200;

    private final HttpClient client;
    private final Duration requestTimeout;
    private final io.fabric8.kubernetes.client.KubernetesClient kubernetes;
    private final java.util.Optional<String> bearerToken;
    /** https:// instead of http:// (the client port speaks TLS; {@link #client} trusts its CAs). */
    private final boolean tls;
    /** One HTTP client per TLS material (CAs and certificate), shared by every view of this admin client. */
    private final Map<String, HttpClient> tlsClients;

    private final Duration connectTimeout;

    public HttpMemberAdmin() {
        this(CONNECT_TIMEOUT, REQUEST_TIMEOUT);
    }

    /** @param kubernetes opens the port-forwards of privileged calls ({@link PortForwards}) */
    public HttpMemberAdmin(io.fabric8.kubernetes.client.KubernetesClient kubernetes) {
        this(CONNECT_TIMEOUT, REQUEST_TIMEOUT, kubernetes);
    }

    public HttpMemberAdmin(Duration connectTimeout, Duration requestTimeout) {
        this(connectTimeout, requestTimeout, null);
    }

    public HttpMemberAdmin(
            Duration connectTimeout,
            Duration requestTimeout,
            io.fabric8.kubernetes.client.KubernetesClient kubernetes) {
        this(
                builder(connectTimeout).build(),
                requestTimeout,
                kubernetes,
                java.util.Optional.empty(),
                false,
                tlsClientCache(),
                connectTimeout);
    }

    private HttpMemberAdmin(
            HttpClient client,
            Duration requestTimeout,
            io.fabric8.kubernetes.client.KubernetesClient kubernetes,
            java.util.Optional<String> bearerToken,
            boolean tls,
            Map<String, HttpClient> tlsClients,
            Duration connectTimeout) {
        this.client = client;
        this.requestTimeout = requestTimeout;
        this.kubernetes = kubernetes;
        this.bearerToken = bearerToken;
        this.tls = tls;
        this.tlsClients = tlsClients;
        this.connectTimeout = connectTimeout;
    }

    private static HttpClient.Builder builder(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .version(HttpClient.Version.HTTP_1_1);
    }

    /** At most a few dozen clusters' materials at once; the least recently used client is let go. */
    private static Map<String, HttpClient> tlsClientCache() {
        return java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, HttpClient> eldest) {
                if (size() > 32) {
                    eldest.getValue().shutdown(); // its calls in flight finish
                    return true;
                }
                return false;
            }
        });
    }

    @Override
    public MemberAdmin authenticated(java.util.Optional<String> bearerToken) {
        return new HttpMemberAdmin(client, requestTimeout, kubernetes, bearerToken, tls, tlsClients, connectTimeout);
    }

    @Override
    public MemberAdmin authenticated(NodeCredentials credentials) {
        if (credentials.tls().isEmpty()) {
            return new HttpMemberAdmin(
                    client, requestTimeout, kubernetes, credentials.token(), false, tlsClients, connectTimeout);
        }
        var material = credentials.tls().get();
        HttpClient tlsClient = tlsClients.computeIfAbsent(
                material.key(),
                k -> builder(connectTimeout)
                        .sslContext(dev.dht.operator.security.pki.TlsContexts.of(
                                material.certificate().orElse(null), material.trusted()))
                        .build());
        return new HttpMemberAdmin(
                tlsClient, requestTimeout, kubernetes, credentials.token(), true, tlsClients, connectTimeout);
    }

    /** The URL as this view calls it: https:// when the client port speaks TLS. */
    private String scheme(String url) {
        return tls && url.startsWith("http://") ? "https://" + url.substring("http://".length()) : url;
    }

    @Override
    public CompletableFuture<MemberMovement> movement(String baseUrl) {
        return report(baseUrl, MOVEMENT_PATH, HttpMemberAdmin::read, MemberMovement::unknown);
    }

    @Override
    public CompletableFuture<MemberHints> hints(String baseUrl) {
        return report(
                baseUrl, METRICS_PATH, r -> MemberHints.fromMetrics(r.statusCode(), r.body()), MemberHints::unknown);
    }

    @Override
    public CompletableFuture<MemberRepair> repair(String baseUrl) {
        return report(
                baseUrl,
                REPAIR_PATH,
                r -> r.statusCode() == 200
                        ? MemberRepair.fromJson(r.body())
                        : MemberRepair.unknown("HTTP " + r.statusCode()),
                MemberRepair::unknown);
    }

    /** A member's report at {@code path}: never fails, anything but an answer is {@code unknown} saying why. */
    private <T> CompletableFuture<T> report(
            String baseUrl, String path, Function<HttpResponse<String>, T> read, Function<String, T> unknown) {
        HttpRequest request;
        try {
            var builder = HttpRequest.newBuilder(URI.create(scheme(stripSlash(baseUrl)) + path))
                    .timeout(requestTimeout)
                    .header("Accept", "application/json")
                    .GET();
            bearerToken.ifPresent(token -> builder.header("Authorization", "Bearer " + token));
            request = builder.build();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(unknown.apply("bad URL " + baseUrl + ": " + e.getMessage()));
        }
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(read)
                .exceptionally(e -> unknown.apply(describe(e)))
                // A last bound in case the client's own timeouts do not fire (they cover connect and response).
                .completeOnTimeout(
                        unknown.apply("no answer within " + requestTimeout.plus(CONNECT_TIMEOUT)),
                        requestTimeout.plus(CONNECT_TIMEOUT).toMillis() + 500,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    @Override
    public CompletableFuture<AdminAnswer> call(
            String baseUrl, String method, String path, java.util.Map<String, Object> body, Duration timeout) {
        if (PortForwards.is(baseUrl)) {
            if (kubernetes == null) {
                return CompletableFuture.completedFuture(
                        AdminAnswer.failed("no Kubernetes client to port-forward " + baseUrl));
            }
            PortForwards.Forward forward;
            try {
                forward = PortForwards.open(kubernetes, baseUrl);
            } catch (RuntimeException e) {
                return CompletableFuture.completedFuture(
                        AdminAnswer.failed("port-forward " + baseUrl + ": " + describe(e)));
            }
            return direct(forward.baseUrl(), method, path, body, timeout).whenComplete((a, e) -> forward.close());
        }
        return direct(baseUrl, method, path, body, timeout);
    }

    private CompletableFuture<AdminAnswer> direct(
            String baseUrl, String method, String path, java.util.Map<String, Object> body, Duration timeout) {
        HttpRequest request;
        try {
            var publisher = body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body));
            var builder = HttpRequest.newBuilder(URI.create(scheme(stripSlash(baseUrl)) + path))
                    .timeout(timeout)
                    .header("Accept", "application/json")
                    .header("Content-Type", "application/json")
                    .method(method, publisher);
            // Through a port-forward the node sees loopback, which has admin rights anyway; a direct call (the status
            // GETs) needs the token wherever the node requires tokens.
            bearerToken.ifPresent(token -> builder.header("Authorization", "Bearer " + token));
            request = builder.build();
        } catch (IllegalArgumentException | com.fasterxml.jackson.core.JsonProcessingException e) {
            return CompletableFuture.completedFuture(
                    AdminAnswer.failed("bad call to " + baseUrl + ": " + e.getMessage()));
        }
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(HttpMemberAdmin::readAnswer)
                .exceptionally(e -> AdminAnswer.failed(describe(e)))
                .completeOnTimeout(
                        AdminAnswer.failed("no answer within " + timeout.plus(CONNECT_TIMEOUT)),
                        timeout.plus(CONNECT_TIMEOUT).toMillis() + 500,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @SuppressWarnings("unchecked")
    static AdminAnswer readAnswer(HttpResponse<String> response) {
        try {
            Object parsed = JSON.readValue(response.body(), Object.class);
            if (parsed instanceof java.util.Map<?, ?> m) {
                return new AdminAnswer(response.statusCode(), (java.util.Map<String, Object>) m, null);
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not JSON: below
        }
        String body = response.body() == null ? "" : response.body().strip();
        return new AdminAnswer(
                response.statusCode(),
                java.util.Map.of(
                        "error",
                        "HTTP " + response.statusCode() + ": "
                                + (body.length() > MAX_PROBLEM_BODY
                                        ? body.substring(0, MAX_PROBLEM_BODY) + "..."
                                        : body)),
                null);
    }

    static MemberMovement read(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            String body = response.body() == null ? "" : response.body().strip();
            return MemberMovement.unknown("HTTP " + response.statusCode()
                    + (body.isEmpty()
                            ? ""
                            : ": "
                                    + (body.length() > MAX_PROBLEM_BODY
                                            ? body.substring(0, MAX_PROBLEM_BODY) + "..."
                                            : body)));
        }
        return MemberMovement.fromJson(response.body());
    }

    static String describe(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof HttpTimeoutException) {
            return "timed out";
        }
        if (cause instanceof ConnectException) {
            return "connection refused or unreachable";
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
