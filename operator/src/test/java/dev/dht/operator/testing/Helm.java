package dev.dht.operator.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The pinned helm (v3.22.0): $DHT_HELM when make sets it, else what scripts/tool.sh installs and
 * caches. Renders charts/dht-operator for the tests.
 */
public final class Helm {
    public static final String CHART = "charts/dht-operator";
    private static Path binary;

    private Helm() {}

    public static synchronized Path binary() {
        if (binary == null) {
            String fromEnv = System.getenv("DHT_HELM");
            if (fromEnv != null && !fromEnv.isBlank()) {
                binary = Path.of(fromEnv);
                if (!Files.isExecutable(binary)) {
                    throw new IllegalStateException("DHT_HELM=" + fromEnv + " is not an executable helm binary");
                }
            } else {
                var result = Processes.run(List.of("scripts/tool.sh", "helm"), Map.of(), Repo.root())
                        .orFail("scripts/tool.sh helm (installs the pinned helm)");
                binary = Path.of(result.stdout().trim());
            }
        }
        return binary;
    }

    public static Processes.Result run(String... args) {
        var command = new ArrayList<String>();
        command.add(binary().toString());
        command.addAll(Arrays.asList(args));
        // No kubeconfig or repositories of the machine: these commands work offline on the chart alone.
        return Processes.run(
                command,
                Map.of(
                        "HELM_CACHE_HOME",
                        tmp("cache"),
                        "HELM_CONFIG_HOME",
                        tmp("config"),
                        "HELM_DATA_HOME",
                        tmp("data"),
                        "KUBECONFIG",
                        "/dev/null"),
                Repo.root());
    }

    /** helm template of the chart, parsed into objects. */
    public static List<GenericKubernetesResource> template(String release, String namespace, String... extra) {
        var args = new ArrayList<>(List.of("template", release, CHART, "--namespace", namespace));
        args.addAll(Arrays.asList(extra));
        var output = run(args.toArray(String[]::new)).orFail("helm template").stdout();
        return parse(output);
    }

    public static List<GenericKubernetesResource> parse(String multiDocumentYaml) {
        var objects = new ArrayList<GenericKubernetesResource>();
        for (String document : multiDocumentYaml.split("(?m)^---\\s*$")) {
            boolean empty = document.lines().allMatch(l -> l.isBlank() || l.startsWith("#"));
            if (!empty) {
                objects.add(Serialization.unmarshal(document, GenericKubernetesResource.class));
            }
        }
        return objects;
    }

    private static String tmp(String name) {
        return Path.of(System.getProperty("java.io.tmpdir"), "dht-helm-" + name).toString();
    }
}
