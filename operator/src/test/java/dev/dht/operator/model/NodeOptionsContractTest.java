package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.NodeOptions;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.testing.Repo;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where the operator's or the CRD's default is the node's own, it is the node's value. NodeOptions is generated from
 * the node's option table (the node's OptionFilesTest fails when it is stale); this fails when the operator does not
 * use it. (NodeOptionsIT checks the variable names against the real node's --help.)
 */
class NodeOptionsContractTest {
    @Test
    void theOperatorsDefaultsThatAreTheNodesAreTheNodes() {
        var env = NodeConfig.environment(ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM));
        assertThat(ClusterModel.duration("node", env.get(NodeOptions.Env.REPAIR_INTERVAL)))
                .isEqualTo(ClusterModel.duration("node", NodeOptions.Default.REPAIR_INTERVAL));
        assertThat(env.get(NodeOptions.Env.REPAIR_RATE))
                .isEqualTo(ClusterModel.bytes("node", NodeOptions.Default.REPAIR_RATE)
                        .orElseThrow()
                        .toString());
        var model = ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM);
        assertThat(model.backup().uploadRate())
                .isEqualTo(ClusterModel.bytes("node", NodeOptions.Default.BACKUP_RATE)
                        .orElseThrow());
        assertThat(model.repair().interval())
                .as("repair stays inside the node's tombstone grace")
                .isLessThan(ClusterModel.duration("node", NodeOptions.Default.TOMBSTONE_GRACE));
        assertThat(Names.NODE_PORT).isEqualTo(NodeOptions.Default.PORT);
        assertThat(NodeSecurity.MEMBER_PORT)
                .isEqualTo(NodeOptions.Default.PORT + NodeOptions.Default.MEMBER_PORT_OFFSET);
        assertThat(SecurityNames.MEMBER_PORT_OFFSET).isEqualTo(NodeOptions.Default.MEMBER_PORT_OFFSET);
    }

    /** The committed CRD (what the API server fills in) defaults to the node's values where the node has them. */
    @Test
    void theCrdsDefaultsThatAreTheNodesAreTheNodes() {
        var crd = new KubernetesSerialization()
                .unmarshal(Repo.read("crds/" + Repo.CRD_FILE), CustomResourceDefinition.class);
        JSONSchemaProps spec = crd.getSpec()
                .getVersions()
                .get(0)
                .getSchema()
                .getOpenAPIV3Schema()
                .getProperties()
                .get("spec");
        Map<String, JSONSchemaProps> repair = spec.getProperties().get("repair").getProperties();
        assertThat(repair.get("interval").getDefault().asText()).isEqualTo(NodeOptions.Default.REPAIR_INTERVAL);
        assertThat(repair.get("rate").getDefault().asText()).isEqualTo(NodeOptions.Default.REPAIR_RATE);
        assertThat(spec.getProperties()
                        .get("service")
                        .getProperties()
                        .get("port")
                        .getDefault()
                        .asInt())
                .isEqualTo(NodeOptions.Default.PORT);
    }
}
