package dev.dht.operator.docs;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders docs/crd-reference.md from the generated CRD, so the reference can never disagree with
 * the schema the API server enforces (GeneratedFilesTest checks the committed file).
 */
public final class CrdReference {
    /** Fields whose schema is a Kubernetes core type: named, not expanded. */
    static final Map<String, String> KUBERNETES_TYPES = Map.of(
            "spec.affinity",
                    "[Affinity](https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#scheduling)",
            "spec.tolerations",
                    "list of [Toleration](https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#scheduling)",
            "spec.imagePullSecrets",
                    "list of [LocalObjectReference](https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/local-object-reference/)",
            "status.conditions",
                    "list of [Condition](https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/condition/) (type, status, reason, message, lastTransitionTime, observedGeneration)");

    private CrdReference() {}

    public static String render(CustomResourceDefinition crd) {
        var spec = crd.getSpec();
        var version = spec.getVersions().get(0);
        var root = version.getSchema().getOpenAPIV3Schema();
        var out = new StringBuilder();
        String shortName = spec.getNames().getShortNames().get(0);
        boolean scale =
                version.getSubresources() != null && version.getSubresources().getScale() != null;
        out.append("# ")
                .append(spec.getNames().getKind())
                .append(" reference\n\n")
                .append(
                        "<!-- Generated from the CRD by CrdReference (operator tests). Do not edit: run scripts/sync-crds.sh. -->\n\n")
                .append("`")
                .append(spec.getGroup())
                .append('/')
                .append(version.getName())
                .append("`, kind `")
                .append(spec.getNames().getKind())
                .append("`, ")
                .append(spec.getScope().toLowerCase())
                .append(", short name `")
                .append(String.join("`, `", spec.getNames().getShortNames()))
                .append("`.")
                .append(
                        scale
                                ? " Subresources: status, scale (`kubectl scale " + shortName
                                        + "/<name> --replicas=N`).\n\n"
                                : " Subresources: status.\n\n");
        out.append("`kubectl get ")
                .append(shortName)
                .append("` columns: ")
                .append(version.getAdditionalPrinterColumns().stream()
                        .map(c -> c.getName().toUpperCase() + " (`" + c.getJsonPath() + "`)")
                        .collect(Collectors.joining(", ")))
                .append(".\n\n");
        rules(out, "Object", root.getXKubernetesValidations());
        for (String part : List.of("spec", "status")) {
            var schema = root.getProperties().get(part);
            out.append("## ").append(part).append("\n\n");
            if (schema.getDescription() != null) {
                out.append(schema.getDescription()).append("\n\n");
            }
            rules(out, "`" + part + "`", schema.getXKubernetesValidations());
            out.append("| Field | Type | Default | Description |\n|---|---|---|---|\n");
            var rows = new ArrayList<String>();
            fields(rows, part, schema);
            rows.forEach(r -> out.append(r).append('\n'));
            out.append('\n');
        }
        return out.toString();
    }

    private static void fields(List<String> rows, String path, JSONSchemaProps schema) {
        if (schema.getProperties() == null) {
            return;
        }
        var required = schema.getRequired() == null ? List.<String>of() : schema.getRequired();
        for (var entry : schema.getProperties().entrySet()) {
            String fieldPath = path + "." + entry.getKey();
            var field = entry.getValue();
            String known = KUBERNETES_TYPES.get(fieldPath);
            rows.add("| `" + fieldPath + "`" + (required.contains(entry.getKey()) ? " (required)" : "") + " | "
                    + (known != null ? known : type(field)) + " | " + defaultOf(field) + " | " + description(field)
                    + " |");
            if (known == null) {
                var items = "array".equals(field.getType()) && field.getItems() != null
                        ? field.getItems().getSchema()
                        : null;
                fields(rows, items != null ? fieldPath + "[]" : fieldPath, items != null ? items : field);
            }
        }
    }

    private static String type(JSONSchemaProps field) {
        if ("array".equals(field.getType())
                && field.getItems() != null
                && field.getItems().getSchema() != null) {
            return "list of " + type(field.getItems().getSchema());
        }
        if ("object".equals(field.getType())
                && field.getAdditionalProperties() != null
                && field.getAdditionalProperties().getSchema() != null) {
            return "map of " + type(field.getAdditionalProperties().getSchema());
        }
        String type = field.getType() != null ? field.getType() : "any";
        if (field.getEnum() != null && !field.getEnum().isEmpty()) {
            type += ": "
                    + field.getEnum().stream().map(e -> "`" + e.asText() + "`").collect(Collectors.joining(", "));
        }
        return type;
    }

    private static String defaultOf(JSONSchemaProps field) {
        if (field.getDefault() == null) {
            return "";
        }
        return "`" + field.getDefault().toString().replace("|", "\\|") + "`";
    }

    private static String description(JSONSchemaProps field) {
        var text = new StringBuilder(field.getDescription() == null ? "" : field.getDescription());
        if (field.getMinimum() != null) {
            text.append(" Minimum ").append(field.getMinimum().longValue()).append('.');
        }
        if (field.getMaximum() != null) {
            text.append(" Maximum ").append(field.getMaximum().longValue()).append('.');
        }
        if (field.getXKubernetesValidations() != null) {
            for (ValidationRule rule : field.getXKubernetesValidations()) {
                text.append(" Rule: ").append(rule.getMessage()).append('.');
            }
        }
        return text.toString().replace("|", "\\|").replace("\n", " ").trim();
    }

    private static void rules(StringBuilder out, String what, List<ValidationRule> rules) {
        if (rules == null || rules.isEmpty()) {
            return;
        }
        out.append(what).append(" rules (checked by the API server):\n\n");
        for (var rule : rules) {
            out.append("- ")
                    .append(rule.getMessage())
                    .append(" (CEL: `")
                    .append(rule.getRule())
                    .append("`)\n");
        }
        out.append('\n');
    }
}
