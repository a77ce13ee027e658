package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.docs.CrdReference;
import dev.dht.operator.testing.Repo;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed generated files match what this build generates from the Java model: the CRD in
 * crds/ and in the chart, and docs/crd-reference.md. With DHT_UPDATE_GENERATED=true (what
 * scripts/sync-crds.sh sets) it writes them instead.
 */
class GeneratedFilesTest {
  static final boolean UPDATE = "true".equals(System.getenv("DHT_UPDATE_GENERATED"));

  static Stream<Arguments> committedFiles() throws IOException {
    String crd = Files.readString(Repo.generatedCrd());
    String benchmarkCrd = Files.readString(Repo.generatedCrd(Repo.BENCHMARK_CRD_FILE));
    String reference = CrdReference.render(Serialization.unmarshal(crd, CustomResourceDefinition.class)) + "\n"
        + CrdReference.render(Serialization.unmarshal(benchmarkCrd, CustomResourceDefinition.class));
    return Stream.of(
        Arguments.of("crds/" + Repo.CRD_FILE, crd),
        Arguments.of("charts/dht-operator/crds/" + Repo.CRD_FILE, crd),
        Arguments.of("crds/" + Repo.BENCHMARK_CRD_FILE, benchmarkCrd),
        Arguments.of("charts/dht-operator/crds/" + Repo.BENCHMARK_CRD_FILE, benchmarkCrd),
        Arguments.of("docs/crd-reference.md", reference));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("committedFiles")
  void committedCopyIsUpToDate(String relative, String generated) throws IOException {
    Path committed = Repo.path(relative);
    if (UPDATE) {
      Files.createDirectories(committed.getParent());
      Files.writeString(committed, generated);
    }
    assertThat(Files.exists(committed)).as(relative + " exists (run scripts/sync-crds.sh)").isTrue();
    assertThat(Files.readString(committed))
        .as(relative + " is stale: the Java model changed. Run scripts/sync-crds.sh (make crds) and commit the result")
        .isEqualTo(generated);
  }
}
