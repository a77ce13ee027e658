package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.testing.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** model/, status/, scaling/, rollout/ and security/ are pure: no Kubernetes client, no JOSDK, no reconciler (I/O lives at the edges). */
class ArchitectureTest {
  static final List<String> FORBIDDEN = List.of("import io.fabric8.kubernetes.client.", "import io.javaoperatorsdk.",
      "import dev.dht.operator.reconciler.", "import java.net.", "import java.nio.file.");

  @ParameterizedTest
  @ValueSource(strings = {"model", "status", "scaling", "rollout", "backup", "benchmark/model", "benchmark/status", "security",
      "security/pki", "security/tls", "security/auth", "security/network"})
  void pureDesiredStateAndStatusCode(String pkg) throws IOException {
    Path dir = Repo.path("operator/src/main/java/dev/dht/operator/" + pkg);
    try (Stream<Path> files = Files.list(dir)) {
      var sources = files.filter(f -> f.toString().endsWith(".java")).toList();
      assertThat(sources).isNotEmpty();
      for (Path source : sources) {
        assertThat(Files.readAllLines(source)).as(source.getFileName().toString())
            .noneMatch(line -> FORBIDDEN.stream().anyMatch(line::startsWith));
      }
    }
  }
}
