package dev.dht.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The package rules of docs/architecture.md ("Layers"), checked on the operator's compiled classes. */
@AnalyzeClasses(packages = "dev.dht.operator", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    /**
     * The desired-state builders, status, the state machines and the security builders are pure functions: no
     * Kubernetes client, no JOSDK, no reconciler, no network or file I/O (I/O lives at the edges: reconciler/,
     * nodeadmin/, backup/reconciler/, benchmark/reconciler/). Each package by its own name: a subpackage such as
     * backup.reconciler is an edge.
     */
    @ArchTest
    static final ArchRule pureBuildersDoNoIo = noClasses()
            .that()
            .resideInAnyPackage(
                    "dev.dht.operator.model",
                    "dev.dht.operator.status",
                    "dev.dht.operator.scaling",
                    "dev.dht.operator.rollout",
                    "dev.dht.operator.upgrade",
                    "dev.dht.operator.backup",
                    "dev.dht.operator.benchmark.model",
                    "dev.dht.operator.benchmark.status",
                    "dev.dht.operator.security",
                    "dev.dht.operator.security.pki",
                    "dev.dht.operator.security.tls",
                    "dev.dht.operator.security.auth",
                    "dev.dht.operator.security.network")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "io.fabric8.kubernetes.client..",
                    "io.javaoperatorsdk..",
                    "dev.dht.operator.reconciler..",
                    "java.net..",
                    "java.nio.file..")
            .because("desired state and status are pure functions of what is observed, unit-tested without a cluster");

    /**
     * No cycle between packages. Each package is a slice of its own (not each top-level folder): a feature keeps its
     * pure part and its I/O side by side (backup/ and backup/reconciler/), and the I/O side may use the shared
     * reconciler/ parts that themselves use the pure part.
     */
    @ArchTest
    static final ArchRule noPackageCycles =
            slices().matching("dev.dht.operator.(**)").should().beFreeOfCycles();
}
