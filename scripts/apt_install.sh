# Sourced by bootstrap.sh and bench-setup.sh: `apt_install NAME PACKAGE...` installs the Debian
# packages that are missing, with apt-get, as root or through sudo. When every package is
# installed already it does nothing at all (no apt-get, not even `apt-get update`).
apt_install() {
  local name="$1"
  shift
  local missing=() package status
  for package in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
      missing+=("$package")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "$name: all $# packages are installed"
    return 0
  fi
  local as_root=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null; then
      as_root=(sudo)
    else
      echo "$name: run as root or install sudo; missing packages: ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "$name: installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}
