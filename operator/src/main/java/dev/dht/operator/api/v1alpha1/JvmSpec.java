package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class JvmSpec {
    @Size(max = 32)
    @ValidationRule(
            value = "isQuantity(self) && quantity(self).isGreaterThan(quantity('16Mi'))",
            message = "jvm.heap must be a Kubernetes quantity above 16Mi, such as 512Mi or 2Gi")
    @JsonPropertyDescription("Heap size (-Xms and -Xmx), a quantity such as 512Mi. Default: 40% of the"
            + " container's memory limit (-XX:MaxRAMPercentage=40), leaving room for RocksDB's native memory.")
    public String heap;

    @JsonPropertyDescription("Extra JVM options, appended after the operator's (so they win).")
    public List<String> options;
}
