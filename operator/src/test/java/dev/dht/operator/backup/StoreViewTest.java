package dev.dht.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.nodeadmin.AdminAnswer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoreViewTest {
  static final List<String> PODS = List.of("dht-0", "dht-1", "dht-2");

  static AdminAnswer store(Boolean ok, String error) {
    var store = new HashMap<String, Object>();
    store.put("ok", ok);
    store.put("error", error);
    return new AdminAnswer(200, Map.of("phase", "idle", "store", store), null);
  }

  @Test
  void oneMemberThatCannotUseTheStoreMakesItFalseSayingWhoAndWhy() {
    var view = StoreView.of(Map.of(0, store(true, null), 1, store(false, "HTTP 403 InvalidAccessKeyId: check the"
        + " credentials Secret"), 2, AdminAnswer.failed("connection refused")), PODS);
    assertThat(view.status()).isEqualTo("False");
    assertThat(view.reason()).isEqualTo("StoreNotUsable");
    assertThat(view.message()).isEqualTo("dht-1: HTTP 403 InvalidAccessKeyId: check the credentials Secret");
  }

  @Test
  void trueOnlyOnceAMemberCouldUseItAndUnknownBeforeAnyProbe() {
    assertThat(StoreView.of(Map.of(0, store(true, null), 1, store(null, null)), PODS).status()).isEqualTo("True");
    assertThat(StoreView.of(Map.of(0, store(null, null), 1, AdminAnswer.failed("no answer")), PODS))
        .isEqualTo(new StoreView("Unknown", "NoReports", "no member has reported on the object store yet"));
    assertThat(StoreView.of(Map.of(), PODS).status()).isEqualTo("Unknown");
  }
}
