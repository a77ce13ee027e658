package dev.dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class QueryParamsTest {

    @Test
    void findsParametersByExactName() throws Exception {
        assertThat(QueryParams.get("id=1&replicas=2/3", "id")).isEqualTo("1");
        assertThat(QueryParams.get("id=1&replicas=2/3", "replicas")).isEqualTo("2/3");
        assertThat(QueryParams.get("idx=1&id=2", "id")).isEqualTo("2");
        assertThat(QueryParams.get("id=1&id=2", "id")).as("first wins").isEqualTo("1");
        assertThat(QueryParams.get("start=&end=", "start")).isEmpty();
        assertThat(QueryParams.get("id", "id")).isEmpty();
        assertThat(QueryParams.get("end=end", "start")).isNull();
        assertThat(QueryParams.get(null, "id")).isNull();
        assertThat(QueryParams.get("", "id")).isNull();
    }

    @Test
    void decodesPercentEscapesOfOneValueOnly() throws Exception {
        assertThat(QueryParams.get("id=a%26b&x=1", "id")).isEqualTo("a&b");
        assertThat(QueryParams.get("id=%D0%BA%D0%BB%D1%8E%D1%87", "id")).isEqualTo("ключ");
        assertThat(QueryParams.get("id=a+b", "id")).isEqualTo("a b");
        assertThatThrownBy(() -> QueryParams.get("id=%zz", "id")).isInstanceOf(BadRequestException.class);
    }
}
