package dev.dht.node.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The two credential endpoints a pod on EKS talks to, on loopback, answering as AWS documents them (no cloud is
 * reachable here), handing out the credentials a test gives them:
 * <ul>
 *   <li>STS {@code AssumeRoleWithWebIdentity} (IRSA): a form POST with Action, Version, RoleArn, RoleSessionName,
 *       WebIdentityToken; answered with the XML AssumeRoleWithWebIdentityResponse (Credentials with AccessKeyId,
 *       SecretAccessKey, SessionToken, Expiration). The SDK finds it through {@code AWS_ENDPOINT_URL_STS}.</li>
 *   <li>the container credentials endpoint (EKS Pod Identity's agent, ECS): a GET of
 *       {@code AWS_CONTAINER_CREDENTIALS_FULL_URI} with the token file's content as {@code Authorization}; answered
 *       with JSON AccessKeyId, SecretAccessKey, Expiration, and Token when the test gives one.</li>
 * </ul>
 * Every request is recorded, so a test can show that the node's credentials came from here.
 */
public final class IdentityEndpoints implements AutoCloseable {
    public static final String CONTAINER_PATH = "/v1/credentials";

    /** What a client asked: method, path, the Authorization header, and the form (STS) parameters. */
    public record Call(String method, String path, String authorization, Map<String, String> form) {}

    /** The credentials handed out; sessionToken null for none. */
    public record Issued(String accessKeyId, String secretAccessKey, String sessionToken) {}

    private final HttpServer server;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private volatile Issued issued;

    private IdentityEndpoints(HttpServer server) {
        this.server = server;
    }

    public static IdentityEndpoints start(Issued issued) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            IdentityEndpoints e = new IdentityEndpoints(server);
            e.issued = issued;
            server.createContext("/", e::handle);
            server.start();
            return e;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    private void handle(HttpExchange x) throws IOException {
        String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, String> form = new LinkedHashMap<>();
        String query = x.getRequestURI().getRawQuery();
        for (String source : new String[] {query, body}) {
            if (source == null || source.isEmpty()) {
                continue;
            }
            for (String pair : source.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    form.put(
                            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        calls.add(new Call(
                x.getRequestMethod(),
                x.getRequestURI().getPath(),
                x.getRequestHeaders().getFirst("Authorization"),
                form));
        Issued c = issued;
        String expiration = Instant.now()
                .plus(1, ChronoUnit.HOURS)
                .truncatedTo(ChronoUnit.SECONDS)
                .toString();
        if ("GET".equals(x.getRequestMethod())
                && CONTAINER_PATH.equals(x.getRequestURI().getPath())) {
            String json = "{\"AccessKeyId\":\"" + c.accessKeyId() + "\",\"SecretAccessKey\":\"" + c.secretAccessKey()
                    + "\"," + (c.sessionToken() == null ? "" : "\"Token\":\"" + c.sessionToken() + "\",")
                    + "\"AccountId\":\"111122223333\",\"Expiration\":\"" + expiration + "\"}";
            send(x, 200, "application/json", json);
        } else if ("AssumeRoleWithWebIdentity".equals(form.get("Action"))) {
            String xml = """
                    <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                      <AssumeRoleWithWebIdentityResult>
                        <SubjectFromWebIdentityToken>system:serviceaccount:dht:dht</SubjectFromWebIdentityToken>
                        <Audience>sts.amazonaws.com</Audience>
                        <AssumedRoleUser>
                          <Arn>arn:aws:sts::111122223333:assumed-role/dht-backup/%s</Arn>
                          <AssumedRoleId>AROAEXAMPLEROLEID:%s</AssumedRoleId>
                        </AssumedRoleUser>
                        <Credentials>
                          <AccessKeyId>%s</AccessKeyId>
                          <SecretAccessKey>%s</SecretAccessKey>
                          <SessionToken>%s</SessionToken>
                          <Expiration>%s</Expiration>
                        </Credentials>
                        <Provider>oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE</Provider>
                      </AssumeRoleWithWebIdentityResult>
                      <ResponseMetadata><RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ResponseMetadata>
                    </AssumeRoleWithWebIdentityResponse>
                    """.formatted(
                            form.get("RoleSessionName"),
                            form.get("RoleSessionName"),
                            c.accessKeyId(),
                            c.secretAccessKey(),
                            c.sessionToken(),
                            expiration);
            send(x, 200, "text/xml", xml);
        } else {
            send(x, 400, "text/plain", "unknown request");
        }
    }

    private static void send(HttpExchange x, int status, String type, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
