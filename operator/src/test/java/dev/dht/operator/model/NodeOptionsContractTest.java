package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.NodeOptions;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.RocksDbSpec;
import dev.dht.operator.api.v1alpha1.ServerSpec;
import dev.dht.operator.api.v1alpha1.TlsMode;
import dev.dht.operator.api.v1alpha1.TlsSpec;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.testing.Repo;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The operator and the node agree on the node's options. NodeOptions is generated from the node's option table (the
 * node's OptionFilesTest fails when it is stale); this checks that the operator uses it: it sets only variables the
 * node reads, and where the operator's or the CRD's default is the node's own, it is the node's value.
 */
class NodeOptionsContractTest {
  @Test
  void everyVariableTheOperatorSetsIsANodeOptionAndEachOptionHasOneVariable() throws Exception {
    List<String> variables = constants(NodeOptions.Env.class).stream().map(String::valueOf).toList();
    assertThat(variables).as("each option once").doesNotHaveDuplicates().allMatch(v -> v.startsWith("DHT_"));

    var everything = Clusters.desired(BackupModelTest.backup(true, true).andThen(s -> {
      s.racks = new ArrayList<>(List.of(RackStatefulSetsTest.rack("a", "zone-a"),
          RackStatefulSetsTest.rack("b", "zone-b")));
      s.rocksdb = new RocksDbSpec();
      s.rocksdb.blockCacheSize = "256Mi";
      s.rocksdb.writeBufferSize = "32Mi";
      s.server = new ServerSpec();
      s.server.requestTimeout = "500ms";
      s.server.workers = 8;
      s.server.queueSize = 512;
      s.server.maxBody = "1Mi";
      s.server.tombstoneGrace = "12h";
      s.profiler = new ProfilerSpec();
      s.profiler.enabled = true;
    }));
    var plaintext = Clusters.desired(s -> {
      s.tls = new TlsSpec();
      s.tls.mode = TlsMode.Disabled;
    });
    Set<String> set = new HashSet<>(everything.config().getData().keySet());
    set.addAll(plaintext.config().getData().keySet());
    everything.statefulSets().forEach(sts -> sts.getSpec().getTemplate().getSpec().getContainers()
        .forEach(c -> c.getEnv().forEach(e -> set.add(e.getName()))));
    List<String> nodeVariables = set.stream().filter(v -> v.startsWith("DHT_")).sorted().toList();
    assertThat(nodeVariables).as("variables the operator gives the nodes").hasSizeGreaterThan(20)
        .contains(NodeOptions.Env.RACK, NodeOptions.Env.SELF, NodeOptions.Env.MEMBER_INSECURE,
            NodeOptions.Env.BACKUP_ENCRYPTION_KEY, NodeOptions.Env.RESTORING);
    assertThat(variables).as("the node reads each variable the operator sets").containsAll(nodeVariables);
  }

  @Test
  void theOperatorsDefaultsThatAreTheNodesAreTheNodes() {
    var env = NodeConfig.environment(ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM));
    assertThat(ClusterModel.duration("node", env.get(NodeOptions.Env.REPAIR_INTERVAL)))
        .isEqualTo(ClusterModel.duration("node", NodeOptions.Default.REPAIR_INTERVAL));
    assertThat(env.get(NodeOptions.Env.REPAIR_RATE))
        .isEqualTo(ClusterModel.bytes("node", NodeOptions.Default.REPAIR_RATE).orElseThrow().toString());
    var model = ClusterModel.from(Clusters.cluster(s -> {}), Clusters.PLATFORM);
    assertThat(model.backup().uploadRate())
        .isEqualTo(ClusterModel.bytes("node", NodeOptions.Default.BACKUP_RATE).orElseThrow());
    assertThat(model.repair().interval()).as("repair stays inside the node's tombstone grace")
        .isLessThan(ClusterModel.duration("node", NodeOptions.Default.TOMBSTONE_GRACE));
    assertThat(Names.NODE_PORT).isEqualTo(NodeOptions.Default.PORT);
    assertThat(NodeSecurity.MEMBER_PORT).isEqualTo(NodeOptions.Default.PORT + NodeOptions.Default.MEMBER_PORT_OFFSET);
    assertThat(SecurityNames.MEMBER_PORT_OFFSET).isEqualTo(NodeOptions.Default.MEMBER_PORT_OFFSET);
  }

  /** The committed CRD (what the API server fills in) defaults to the node's values where the node has them. */
  @Test
  void theCrdsDefaultsThatAreTheNodesAreTheNodes() {
    var crd = new KubernetesSerialization().unmarshal(Repo.read("crds/" + Repo.CRD_FILE),
        CustomResourceDefinition.class);
    JSONSchemaProps spec = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties()
        .get("spec");
    Map<String, JSONSchemaProps> repair = spec.getProperties().get("repair").getProperties();
    assertThat(repair.get("interval").getDefault().asText()).isEqualTo(NodeOptions.Default.REPAIR_INTERVAL);
    assertThat(repair.get("rate").getDefault().asText()).isEqualTo(NodeOptions.Default.REPAIR_RATE);
    assertThat(spec.getProperties().get("service").getProperties().get("port").getDefault().asInt())
        .isEqualTo(NodeOptions.Default.PORT);
  }

  private static List<Object> constants(Class<?> holder) throws IllegalAccessException {
    var values = new ArrayList<Object>();
    for (Field f : holder.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && Modifier.isPublic(f.getModifiers())) {
        values.add(f.get(null));
      }
    }
    assertThat(values).isNotEmpty();
    return values;
  }
}
