# Shared by scripts/example and scripts/test: system packages (Debian) and the virtualenv.
# Usage: source scripts/_setup.sh; setup_system [extra apt packages...]; setup_venv [pip extras]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SIGREPORT_VENV:-$ROOT/.venv}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

setup_system() {
  local need=()
  python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
  # weasyprint (PDF) needs Pango; DejaVu is the report's font.
  ldconfig -p 2>/dev/null | grep 'libpango-1.0' >/dev/null || need+=(libpango-1.0-0 libpangoft2-1.0-0)
  ldconfig -p 2>/dev/null | grep 'libharfbuzz-subset' >/dev/null || need+=(libharfbuzz-subset0)
  fc-list 2>/dev/null | grep -i dejavu >/dev/null || need+=(fonts-dejavu-core fontconfig)
  need+=("$@")
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing Debian packages: ${need[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
}

setup_venv() {
  local extras="${1:-}"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$ROOT${extras:+[$extras]}"
}
