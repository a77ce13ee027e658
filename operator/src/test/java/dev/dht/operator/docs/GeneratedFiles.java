package dev.dht.operator.docs;

import dev.dht.operator.testing.Repo;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The committed files generated from the operator's Java model: the CRDs in crds/ and in the chart, and
 * docs/crd-reference.md. {@link #main} writes them (scripts/sync-crds.sh, {@code make crds}); GeneratedFilesTest
 * only compares, so a test can never "pass" by rewriting the file it checks.
 */
public final class GeneratedFiles {
    private GeneratedFiles() {}

    /** Repository-relative path -> the content this build generates (the CRD from target/classes). */
    public static Map<String, String> expected() throws IOException {
        var files = new LinkedHashMap<String, String>();
        var reference = new StringBuilder();
        for (String file : Repo.CRD_FILES) {
            String crd = generated(Repo.generatedCrd(file));
            files.put("crds/" + file, crd);
            files.put("charts/dht-operator/crds/" + file, crd);
            if (!reference.isEmpty()) {
                reference.append("\n");
            }
            reference.append(CrdReference.render(Serialization.unmarshal(crd, CustomResourceDefinition.class)));
        }
        files.put("docs/crd-reference.md", reference.toString());
        return files;
    }

    private static String generated(Path path) throws IOException {
        if (!Files.exists(path)) {
            throw new IllegalStateException(
                    path + " is missing: compile the operator first (the CRD generator runs" + " after compile)");
        }
        return Files.readString(path);
    }

    /** Writes every generated file into the repository (the root is the dht.root system property). */
    public static void main(String[] args) throws IOException {
        for (var file : expected().entrySet()) {
            Path path = Repo.path(file.getKey());
            Files.createDirectories(path.getParent());
            boolean changed = !Files.exists(path) || !Files.readString(path).equals(file.getValue());
            if (changed) {
                Files.writeString(path, file.getValue());
            }
            System.out.println((changed ? "updated   " : "unchanged ") + file.getKey());
        }
    }
}
