#!/usr/bin/env bash
# Prints the JAVA_HOME of a JDK >= 21, or explains how to get one.
. "$(dirname "$0")/lib.sh"
find_java_home || die "no JDK >= 21 found (looked at \$JAVA_HOME and /usr/lib/jvm/*). Install one, e.g. 'apt-get install openjdk-21-jdk' or Temurin 21+, or point JAVA_HOME at it."
