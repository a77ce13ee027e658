package dev.dht.operator.api.v1alpha1;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * A readable toString over the public fields, for the plain status classes of the backup and user resources (logs,
 * test failures). Whether a status changed is decided on its JSON (reconciler/StatusWrites), not here. No fields of
 * its own (the CRD generator sees none).
 */
public abstract class FieldText {
    @Override
    public String toString() {
        var sb = new StringBuilder(getClass().getSimpleName()).append('{');
        for (Field f : getClass().getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                try {
                    Object v = f.get(this);
                    if (v != null) {
                        sb.append(f.getName()).append('=').append(v).append(", ");
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return sb.append('}').toString();
    }
}
