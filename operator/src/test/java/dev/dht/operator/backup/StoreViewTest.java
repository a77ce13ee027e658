package dev.dht.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.nodeadmin.AdminAnswer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoreViewTest {
    static AdminAnswer store(Boolean ok, String error) {
        var store = new HashMap<String, Object>();
        store.put("ok", ok);
        store.put("error", error);
        return new AdminAnswer(200, Map.of("phase", "idle", "store", store), null);
    }

    @Test
    void oneMemberThatCannotUseTheStoreMakesItFalseSayingWhoAndWhy() {
        var view = StoreView.of(Map.of(
                "dht-0",
                store(true, null),
                "dht-1",
                store(false, "HTTP 403 InvalidAccessKeyId: check" + " the credentials Secret"),
                "dht-2",
                AdminAnswer.failed("connection refused")));
        assertThat(view.status()).isEqualTo("False");
        assertThat(view.reason()).isEqualTo("StoreNotUsable");
        assertThat(view.message()).isEqualTo("dht-1: HTTP 403 InvalidAccessKeyId: check the credentials Secret");
    }

    @Test
    void trueOnlyOnceAMemberCouldUseItAndUnknownBeforeAnyProbe() {
        assertThat(StoreView.of(Map.of("dht-0", store(true, null), "dht-1", store(null, null)))
                        .status())
                .isEqualTo("True");
        assertThat(StoreView.of(Map.of("dht-0", store(null, null), "dht-1", AdminAnswer.failed("no answer"))))
                .isEqualTo(new StoreView("Unknown", "NoReports", "no member has reported on the object store yet"));
        assertThat(StoreView.of(Map.of()).status()).isEqualTo("Unknown");
    }
}
