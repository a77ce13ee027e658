package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.Repo;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The runnable artifact: {@code java -jar operator/target/dht-operator.jar} against a kubeconfig,
 * as a separate process. It becomes ready, reconciles a DhtCluster, serves metrics, logs JSON and
 * stops cleanly on SIGTERM.
 */
@ExtendWith(RequiresKubeApiServer.class)
class OperatorJarIT {
    @Test
    void theJarRunsTheOperatorAgainstTheCurrentKubeconfig() throws Exception {
        Path jar = Repo.path("operator/target/dht-operator.jar");
        assertThat(jar).as("packaged before integration tests run").exists();
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (var client = KubeApiServer.client();
                var http = HttpClient.newHttpClient()) {
            KubeApiServer.installCrd(client);
            client.resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName("jar-it")
                            .endMetadata()
                            .build())
                    .serverSideApply();

            Path log = Files.createTempFile("dht-operator", ".log");
            String java = ProcessHandle.current().info().command().orElse("java");
            var builder = new ProcessBuilder(java, "-jar", jar.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment()
                    .put("KUBECONFIG", KubeApiServer.kubeconfigFile().toString());
            builder.environment().put("DHT_OPERATOR_HTTP_PORT", Integer.toString(port));
            builder.environment().put("DHT_OPERATOR_WATCH_NAMESPACES", "jar-it");
            builder.environment().put("DHT_OPERATOR_LOG_FORMAT", "json");
            Process process = builder.start();
            try {
                await("ready")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> status(http, port, "/readyz") == 200);

                var cluster = new DhtCluster();
                cluster.getMetadata().setName("from-jar");
                cluster.getMetadata().setNamespace("jar-it");
                cluster.setSpec(new DhtClusterSpec());
                client.resource(cluster).create();
                await("StatefulSet created")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> client.resources(StatefulSet.class)
                                        .inNamespace("jar-it")
                                        .withName("from-jar")
                                        .get()
                                != null);

                // The write is counted after the API server answered, so the StatefulSet may be visible a moment
                // earlier.
                await("write counted")
                        .atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(body(http, port, "/metrics"))
                                .contains("dht_operator_writes_total{kind=\"StatefulSet\"} 1.0")
                                .contains("jvm_memory_used_bytes"));
                assertThat(status(http, port, "/healthz")).isEqualTo(200);
                // The jar issues certificates (BouncyCastle, trimmed to what it uses by the shade plugin) and reads
                // them
                // back: its CA and member certificate exist, and the status judges them valid.
                await("certificates issued").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    var status = client.resources(DhtCluster.class)
                            .inNamespace("jar-it")
                            .withName("from-jar")
                            .get()
                            .getStatus();
                    assertThat(status).isNotNull();
                    assertThat(status.tls).isNotNull();
                    assertThat(status.tls.certificateNotAfter).isNotNull();
                    assertThat(dev.dht.operator.status.Conditions.find(status.conditions, "CertificatesValid"))
                            .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
                });
                assertThat(client.secrets()
                                .inNamespace("jar-it")
                                .withName("from-jar-member-tls")
                                .get())
                        .isNotNull();
            } finally {
                process.destroy(); // SIGTERM: the shutdown hook stops the operator
                assertThat(process.waitFor(30, TimeUnit.SECONDS))
                        .as("stops on SIGTERM")
                        .isTrue();
            }
            var lines = Files.readAllLines(log);
            assertThat(lines)
                    .as("log:\n" + String.join("\n", lines))
                    .anyMatch(l -> l.startsWith("{")
                            && l.contains("\"level\":\"INFO\"")
                            && l.contains("created StatefulSet from-jar"));
            Files.deleteIfExists(log);
        }
    }

    static int status(HttpClient http, int port, String path) {
        try {
            return http.send(request(port, path), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static String body(HttpClient http, int port, String path) throws Exception {
        return http.send(request(port, path), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    static HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build();
    }
}
