package dev.dht.operator.api.v1alpha1;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Value equality over the public fields, for the plain status classes of the backup resources: a status is written
 * only when it differs from the stored one, so every status class must compare by value. No fields of its own (the
 * CRD generator sees none).
 */
public abstract class FieldEquality {
    private List<Object> values() {
        var out = new ArrayList<>();
        for (Field f : getClass().getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                try {
                    out.add(f.get(this));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o != null && o.getClass() == getClass() && values().equals(((FieldEquality) o).values());
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), values());
    }

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
