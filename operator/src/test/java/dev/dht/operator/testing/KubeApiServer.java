package dev.dht.operator.testing;

import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One real kube-apiserver + etcd (kube-api-test) shared by every integration test in the JVM: it
 * starts on first use and stops when the JVM exits. The binaries are built by
 * scripts/kube-binaries.sh into a cache; kube-api-test reads them from
 * $KUBE_API_TEST_DIR/k8s/&lt;version&gt;-linux-amd64/ and never downloads anything (offline mode).
 *
 * <p>No controller-manager, scheduler or kubelet runs: StatefulSets create no pods and nothing is
 * garbage-collected unless a test fake ({@link FakeStatefulSetController}, {@link FakeGarbageCollector})
 * plays that part.
 */
public final class KubeApiServer {
    static final List<String> BINARIES = List.of("kube-apiserver", "etcd", "kubectl");
    private static io.fabric8.kubeapitest.KubeAPIServer server;
    private static String kubeconfig;
    private static Path kubeconfigFile;

    private KubeApiServer() {}

    /** Where the binaries are, or why they are not there. */
    public record Binaries(Optional<Path> testDir, Optional<Path> binDir, boolean required, String problem) {}

    public static Binaries locate() {
        String fromEnv = System.getenv("KUBE_API_TEST_DIR");
        boolean required = fromEnv != null && !fromEnv.isBlank();
        Path testDir = required ? Path.of(fromEnv) : defaultCacheDir();
        Optional<Path> bin = findBinDir(testDir);
        if (bin.isEmpty() && required) {
            // make test sets KUBE_API_TEST_DIR without waiting for the build, which it starts in the background
            // (scripts/prebuild.sh): the script waits for that build's lock, or builds the binaries itself.
            Processes.run(List.of("scripts/kube-binaries.sh"), Map.of(), Repo.root())
                    .orFail("scripts/kube-binaries.sh (builds kube-apiserver, etcd and kubectl)");
            bin = findBinDir(testDir);
        }
        if (bin.isPresent()) {
            return new Binaries(Optional.of(testDir), bin, required, "");
        }
        String problem = "no kube-apiserver, etcd and kubectl under " + testDir.resolve("k8s")
                + "/<version>-linux-amd64/ ("
                + (required ? "KUBE_API_TEST_DIR" : "the default cache; KUBE_API_TEST_DIR unset")
                + "). Build them with scripts/kube-binaries.sh (make test runs it), then set KUBE_API_TEST_DIR to what it prints.";
        return new Binaries(Optional.of(testDir), Optional.empty(), required, problem);
    }

    static Path defaultCacheDir() {
        String dht = System.getenv("DHT_CACHE_DIR");
        if (dht != null && !dht.isBlank()) {
            return Path.of(dht, "kubeapitest");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return cache.resolve("dht").resolve("kubeapitest");
    }

    private static Optional<Path> findBinDir(Path testDir) {
        Path k8s = testDir.resolve("k8s");
        if (!Files.isDirectory(k8s)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(k8s)) {
            return dirs.filter(d -> BINARIES.stream().allMatch(b -> Files.isExecutable(d.resolve(b))))
                    .sorted()
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static synchronized String kubeconfig() {
        if (server == null) {
            var binaries = locate();
            if (binaries.binDir().isEmpty()) {
                throw new IllegalStateException("cannot start the test API server: " + binaries.problem());
            }
            var config = KubeAPIServerConfigBuilder.anAPIServerConfig()
                    .withTestDir(binaries.testDir().orElseThrow().toString())
                    .withOfflineMode(true)
                    .withUpdateKubeConfig(false)
                    .withStartupTimeout(120_000)
                    .build();
            var started = new io.fabric8.kubeapitest.KubeAPIServer(config);
            started.start();
            server = started;
            kubeconfig = started.getKubeConfigYaml();
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "kube-api-test-stop"));
        }
        return kubeconfig;
    }

    /** A new client of the shared API server (administrator: group system:masters). */
    public static KubernetesClient client() {
        return new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(kubeconfig()))
                .build();
    }

    /** A client that acts as the given user, e.g. a service account, through impersonation. */
    public static KubernetesClient clientAs(String user, String... groups) {
        var config = Config.fromKubeconfig(kubeconfig());
        config.setImpersonateUsername(user);
        config.setImpersonateGroups(groups);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /**
     * Applies the committed CRDs (crds/, what users install) and waits until it is established. Uses
     * fabric8's default field manager, like JOSDK's test extension, so that neither conflicts.
     */
    public static void installCrd(KubernetesClient client) {
        for (String file : Repo.CRD_FILES) {
            var crd = client.getKubernetesSerialization()
                    .unmarshal(
                            Repo.read("crds/" + file),
                            io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class);
            client.resource(crd).forceConflicts().serverSideApply();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(crd.getMetadata().getName())
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(x ->
                                                    "Established".equals(x.getType()) && "True".equals(x.getStatus())),
                            60,
                            java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    public static synchronized Path kubeconfigFile() {
        if (kubeconfigFile == null) {
            try {
                kubeconfigFile = Files.createTempFile("kube-api-test", ".kubeconfig");
                kubeconfigFile.toFile().deleteOnExit();
                Files.writeString(kubeconfigFile, kubeconfig());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return kubeconfigFile;
    }

    public static Path kubectl() {
        return locate().binDir().orElseThrow().resolve("kubectl");
    }
}
