#!/usr/bin/env bash
# Installs what conformance runs need and builds it: the Debian packages (a JDK 17 and
# Maven) when missing, then, with Maven from Maven Central, the conformance driver jar and
# the classpath of each requested Kafka release. Idempotent: with everything installed
# and resolved it touches no network (Maven resolves from ~/.m2). The C++ build never
# needs this; only `isrcheck conform` and conformance/driver/smoke.sh do.
#   scripts/install-kafka.sh [--kafka-version V]...     (default: 4.4.0; may be repeated)
# Releases before 3.7 (which has no kafka-server artifact) resolve through
# conformance/kafka-legacy/pom.xml: kafka_<scala> of that release and its dependencies.
# Prints the driver command line and, per version, the classpath file.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

versions=()
while (($#)); do
  case "$1" in
    --kafka-version)
      [[ $# -ge 2 && -n "$2" ]] || { echo "install-kafka: --kafka-version needs a value (e.g. 4.4.0, 3.9.1)" >&2; exit 2; }
      versions+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install-kafka: unknown argument '$1' (allowed: --kafka-version V)" >&2; exit 2 ;;
  esac
done
((${#versions[@]})) || versions=(4.4.0)
for v in "${versions[@]}"; do
  [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+(\.[0-9]+)?$ ]] || { echo "install-kafka: --kafka-version '$v' is not a release number like 4.4.0 (or 0.11.0.3)" >&2; exit 2; }
done

packages=()
command -v javac >/dev/null 2>&1 && javac -version 2>&1 | grep -qE 'javac (1[7-9]|[2-9][0-9])' || packages+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)
command -v setpriv >/dev/null 2>&1 || packages+=(util-linux)
if ((${#packages[@]})); then
  sudo=()
  [[ "$(id -u)" -eq 0 ]] || sudo=(sudo)
  echo "install-kafka: installing ${packages[*]}" >&2
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
fi

out="$repo/build/conformance"
jar="$out/driver/target/isrcheck-conformance-driver.jar"
# Up to date when the jar and the classpath file are newer than every pom and source.
newest_input() {
  find "$repo/conformance" \( -name pom.xml -o -name '*.java' \) -newer "$1" -print -quit 2>/dev/null
}
for v in "${versions[@]}"; do
  if [[ -s "$out/$v/classpath.txt" && -s "$jar" && -s "$out/driver/classpath.txt" \
        && -z "$(newest_input "$jar")" && -z "$(newest_input "$out/$v/classpath.txt")" ]]; then
    echo "kafka $v classpath: $out/$v/classpath.txt (up to date)"
    continue
  fi
  IFS=. read -r major minor _ <<<"$v"
  if ((major < 3 || (major == 3 && minor < 7))); then
    # kafka_2.13 exists from 2.4.0, kafka_2.12 from 0.10.2.0, kafka_2.11 before.
    scala=2.13
    if ((major < 2 || (major == 2 && minor < 4))); then scala=2.12; fi
    if ((major == 0 && minor == 10)) && [[ "$v" != 0.10.2* ]]; then scala=2.11; fi
    if ((major == 0 && minor < 10)); then scala=2.11; fi
    echo "install-kafka: resolving Kafka $v (kafka_$scala, ZooKeeper-era classpath)" >&2
    mvn -q -B -Dstyle.color=never -f "$repo/conformance/kafka-legacy/pom.xml" -Dkafka.version="$v" \
      -Dscala.binary="$scala" package
    if [[ ! -s "$jar" || -n "$(newest_input "$jar")" ]]; then
      mvn -q -B -Dstyle.color=never -f "$repo/conformance/pom.xml" -pl driver package
    fi
    [[ -s "$out/$v/classpath.txt" ]] || { echo "install-kafka: no classpath written for Kafka $v" >&2; exit 1; }
    touch "$out/$v/classpath.txt"
    echo "kafka $v classpath: $out/$v/classpath.txt"
    continue
  fi
  profile=kafka4
  [[ "$v" == 3.* ]] && profile=kafka3
  echo "install-kafka: resolving Kafka $v and building the driver" >&2
  mvn -q -B -Dstyle.color=never -f "$repo/conformance/pom.xml" -Dkafka.version="$v" -P"$profile" package
  [[ -s "$out/$v/classpath.txt" ]] || { echo "install-kafka: no classpath written for Kafka $v" >&2; exit 1; }
  touch "$out/$v/classpath.txt"
  echo "kafka $v classpath: $out/$v/classpath.txt"
done
# The driver's command line, one argument per line, for callers that must not run Maven.
{
  echo java
  echo -cp
  echo "$jar:$(cat "$out/driver/classpath.txt")"
  echo org.isrcheck.conformance.Driver
  echo --kafka-classpath-dir
  echo "$out"
} > "$out/driver.cmd"
echo "driver jar: $jar"
echo "driver command (one argument per line): $out/driver.cmd"
