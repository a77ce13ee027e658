package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's copy of the node's options and docs/node-options.md are what the option table generates: an option
 * added, renamed or given another default in {@link NodeOption} without {@code make crds} fails here, so the
 * operator's and the CRD's defaults cannot drift from the node's.
 */
class OptionFilesTest {
    static Stream<Arguments> generatedFiles() {
        return OptionFiles.expected().entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("generatedFiles")
    void committedCopyIsUpToDate(String relative, String generated) throws IOException {
        Path committed = OptionFiles.root().resolve(relative);
        assertThat(committed).as(relative + " exists (run make crds)").exists();
        assertThat(Files.readString(committed))
                .as(relative + " is stale: the node's option table (NodeOption) changed. Run make crds and commit")
                .isEqualTo(generated);
    }
}
