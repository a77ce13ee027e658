package dev.dht.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.config.ClusterMembers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The persisted topology state: written atomically, read back exactly, absent for a new node, garbage refused. */
class StateFileTest {
    @TempDir
    Path dir;

    @Test
    void savesAndLoadsStateAndProgress() throws Exception {
        assertThat(StateFile.load(dir)).as("a new node has none").isNull();
        ClusterMembers s = ClusterMembers.of(List.of("http://a:1", "http://b:1"));
        ClusterMembers t = ClusterMembers.of(List.of("http://a:1", "http://b:1", "http://c:1"));
        TopologyState j = TopologyState.initial(s).announce(t).joint();
        StateFile f = StateFile.of(j)
                .withSent(true)
                .withResumeKey(new byte[] {0, 1, (byte) 0xff})
                .withCleanup(true, t.urls());
        f.save(dir);
        StateFile back = StateFile.load(dir);
        assertThat(back.state()).isEqualTo(j);
        assertThat(back.sent()).isTrue();
        assertThat(back.resumeKey()).containsExactly(0, 1, 0xff);
        assertThat(back.cleanupPending()).isTrue();
        assertThat(back.cleanupAmong()).isEqualTo(t.urls());
        assertThat(Files.exists(dir.resolve(StateFile.NAME + ".tmp")))
                .as("the temporary file is renamed")
                .isFalse();

        StateFile.of(j.finish()).save(dir); // replaced whole
        StateFile later = StateFile.load(dir);
        assertThat(later.state()).isEqualTo(j.finish());
        assertThat(later.resumeKey()).isNull();
        assertThat(later.sent()).isFalse();
    }

    @Test
    void aDamagedFileIsAnErrorNotAFreshStart() throws Exception {
        Files.writeString(dir.resolve(StateFile.NAME), "{\"epoch\": 1, \"stage\": \"joint\"");
        assertThatThrownBy(() -> StateFile.load(dir)).hasMessageContaining("not a topology state");
        Files.writeString(dir.resolve(StateFile.NAME), "{\"epoch\": 1, \"stage\": \"joint\", \"stable\": 3}");
        assertThatThrownBy(() -> StateFile.load(dir)).hasMessageContaining("not a topology state");
    }

    @Test
    void racksAreSavedBesideTheListsAndOnlyWhenThereAreAny() throws Exception {
        ClusterMembers s = ClusterMembers.of(List.of("http://a:1", "http://b:1"));
        ClusterMembers t = ClusterMembers.parseList("x=http://a:1,y=http://b:1");
        TopologyState j = TopologyState.initial(s).announce(t).joint();
        StateFile.of(j).save(dir);
        String json = Files.readString(dir.resolve(StateFile.NAME));
        assertThat(json)
                .contains("\"targetRacks\":{\"http://a:1\":\"x\",\"http://b:1\":\"y\"}")
                .doesNotContain("stableRacks");
        assertThat(StateFile.load(dir).state()).isEqualTo(j);
        assertThat(TopologyId.of(t))
                .as("the same URLs in racks are another set")
                .isNotEqualTo(TopologyId.of(s));
        assertThat(TopologyId.of(s)).as("a set without racks keeps its id").isEqualTo("f94f28703c4da9dc");
        assertThat(j.finish().header()).contains(TopologyId.of(t));
    }
}
