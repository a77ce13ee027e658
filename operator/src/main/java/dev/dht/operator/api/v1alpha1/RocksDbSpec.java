package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class RocksDbSpec {
    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "rocksdb.blockCacheSize must be a positive Kubernetes quantity such as 256Mi")
    @JsonPropertyDescription("RocksDB block cache (the node's --block-cache), e.g. 256Mi. Default: a fifth of the"
            + " container's memory limit, at least 64Mi (the heap takes 40% by default).")
    public String blockCacheSize;

    @Size(max = 32)
    @ValidationRule(
            value = ServerSpec.POSITIVE_QUANTITY,
            message = "rocksdb.writeBufferSize must be a positive Kubernetes quantity such as 64Mi")
    @JsonPropertyDescription("RocksDB memtable size (the node's --write-buffer), e.g. 64Mi.")
    public String writeBufferSize;
}
