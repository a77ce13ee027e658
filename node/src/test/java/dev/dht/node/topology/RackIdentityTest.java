package dev.dht.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.config.ClusterMembers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rack a member ran in, kept in its data directory; a declared change is refused unless accepted. */
class RackIdentityTest {
    private static final String SELF = "http://a:1";

    @TempDir
    Path dir;

    @Test
    void aDeclaredRackIsRecordedAndAnotherOneRefusedUnlessAccepted() throws Exception {
        assertThat(RackIdentity.open(dir, null, false).recorded())
                .as("no rack, nothing written")
                .isNull();
        assertThat(Files.exists(dir.resolve(RackIdentity.NAME))).isFalse();
        assertThat(RackIdentity.open(dir, "zone-a", false).recorded())
                .as("the first rack is taken")
                .isEqualTo("zone-a");
        assertThat(RackIdentity.open(dir, "zone-a", false).recorded()).isEqualTo("zone-a");
        assertThatThrownBy(() -> RackIdentity.open(dir, "zone-b", false))
                .isInstanceOf(RackIdentity.RackChanged.class)
                .hasMessageContaining("ran in rack 'zone-a'")
                .hasMessageContaining("declares rack 'zone-b'")
                .hasMessageContaining("--accept-rack-change");
        assertThat(RackIdentity.read(dir)).as("a refusal changes nothing").isEqualTo("zone-a");
        assertThat(RackIdentity.open(dir, "zone-b", true).recorded()).isEqualTo("zone-b");
        assertThat(RackIdentity.open(dir, "zone-b", false).recorded()).isEqualTo("zone-b");
    }

    @Test
    void withoutADeclarationTheRecordFollowsTheMemberList() throws Exception {
        RackIdentity identity = RackIdentity.open(dir, null, false);
        ClusterMembers plain = ClusterMembers.parseList("http://a:1,http://b:1");
        ClusterMembers racked = ClusterMembers.parseList("x=http://a:1,y=http://b:1");
        TopologyState joint = TopologyState.initial(plain).announce(racked).joint();
        identity.placed(SELF, joint);
        assertThat(RackIdentity.read(dir)).as("not while moving").isNull();
        identity.placed(SELF, joint.finish());
        assertThat(RackIdentity.read(dir)).isEqualTo("x");
        assertThat(RackIdentity.open(dir, "x", false).recorded()).isEqualTo("x");
        identity.placed(SELF, TopologyState.initial(plain));
        assertThat(RackIdentity.read(dir)).as("racks turned off").isNull();
    }

    @Test
    void aDeclaredRackThatTheListContradictsIsReportedNotRecorded() throws Exception {
        RackIdentity identity = RackIdentity.open(dir, "y", false);
        identity.placed(SELF, TopologyState.initial(ClusterMembers.parseList("x=http://a:1,y=http://b:1")));
        assertThat(identity.disagreement())
                .contains("places this member in rack 'x'")
                .contains("declares rack 'y'");
        assertThat(RackIdentity.read(dir)).isEqualTo("y");
        identity.placed(SELF, TopologyState.initial(ClusterMembers.parseList("y=http://a:1,y=http://b:1")));
        assertThat(identity.disagreement()).isNull();
    }
}
