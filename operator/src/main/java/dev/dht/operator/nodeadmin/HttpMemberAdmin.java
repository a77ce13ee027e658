package dev.dht.operator.nodeadmin;

import dev.dht.operator.repair.MemberRepair;
import dev.dht.operator.scaling.MemberMovement;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@link MemberAdmin} over HTTP with the JDK client. Short timeouts: the reconcile that polls waits for the
 * answers, and a member that does not answer within them is "unknown" for this round (the next round asks again).
 */
public final class HttpMemberAdmin implements MemberAdmin {
  public static final String MOVEMENT_PATH = "/v0/admin/movement";
  public static final String REPAIR_PATH = "/v0/admin/repair";
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  /** Longer answers are not the contract's (a few hundred bytes); cut them in problem texts. */
  private static final int MAX_PROBLEM_BODY = 200;

  private final HttpClient client;
  private final Duration requestTimeout;
  private final java.util.Optional<String> bearerToken;

  public HttpMemberAdmin() {
    this(CONNECT_TIMEOUT, REQUEST_TIMEOUT);
  }

  public HttpMemberAdmin(Duration connectTimeout, Duration requestTimeout) {
    this(HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        .version(HttpClient.Version.HTTP_1_1)
        .build(), requestTimeout, java.util.Optional.empty());
  }

  private HttpMemberAdmin(HttpClient client, Duration requestTimeout, java.util.Optional<String> bearerToken) {
    this.client = client;
    this.requestTimeout = requestTimeout;
    this.bearerToken = bearerToken;
  }

  @Override
  public MemberAdmin authenticated(java.util.Optional<String> bearerToken) {
    return new HttpMemberAdmin(client, requestTimeout, bearerToken);
  }

  @Override
  public CompletableFuture<MemberMovement> movement(String baseUrl) {
    HttpRequest request;
    try {
      var builder = HttpRequest.newBuilder(URI.create(stripSlash(baseUrl) + MOVEMENT_PATH))
          .timeout(requestTimeout)
          .header("Accept", "application/json")
          .GET();
      bearerToken.ifPresent(token -> builder.header("Authorization", "Bearer " + token));
      request = builder.build();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(MemberMovement.unknown("bad URL " + baseUrl + ": " + e.getMessage()));
    }
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenApply(HttpMemberAdmin::read)
        .exceptionally(e -> MemberMovement.unknown(describe(e)))
        // A last bound in case the client's own timeouts do not fire (they cover connect and response).
        .completeOnTimeout(MemberMovement.unknown("no answer within " + requestTimeout.plus(CONNECT_TIMEOUT)),
            requestTimeout.plus(CONNECT_TIMEOUT).toMillis() + 500, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  @Override
  public CompletableFuture<MemberRepair> repair(String baseUrl) {
    HttpRequest request;
    try {
      var builder = HttpRequest.newBuilder(URI.create(stripSlash(baseUrl) + REPAIR_PATH))
          .timeout(requestTimeout)
          .header("Accept", "application/json")
          .GET();
      bearerToken.ifPresent(token -> builder.header("Authorization", "Bearer " + token));
      request = builder.build();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(MemberRepair.unknown("bad URL " + baseUrl + ": " + e.getMessage()));
    }
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> r.statusCode() == 200 ? MemberRepair.fromJson(r.body())
            : MemberRepair.unknown("HTTP " + r.statusCode()))
        .exceptionally(e -> MemberRepair.unknown(describe(e)))
        .completeOnTimeout(MemberRepair.unknown("no answer within " + requestTimeout.plus(CONNECT_TIMEOUT)),
            requestTimeout.plus(CONNECT_TIMEOUT).toMillis() + 500, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  static MemberMovement read(HttpResponse<String> response) {
    if (response.statusCode() != 200) {
      String body = response.body() == null ? "" : response.body().strip();
      return MemberMovement.unknown("HTTP " + response.statusCode()
          + (body.isEmpty() ? "" : ": " + (body.length() > MAX_PROBLEM_BODY ? body.substring(0, MAX_PROBLEM_BODY)
          + "..." : body)));
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
