# SPDX-License-Identifier: MIT
# Sourced by fetch-mesa and fetch-meson: apt's own client on a private
# sources list and lists directory, so nothing in the system's apt state
# changes. Packages are verified against the suite's Release file, signed by
# Debian's archive keyring.
#
#   apt_private_setup DIR TYPE [SUITE]   TYPE deb or deb-src; SUITE defaults to
#                                        the suite the system uses
#   apt_private ARGS...                  apt-cache on that list
#   apt_private_get ARGS...              apt-get on that list
apt_private_setup() {
	_dir=$1 _type=$2 apt_suite=${3:-}
	_src=/etc/apt/sources.list.d/debian.sources
	apt_uri=$(awk '/^URIs:/{print $2; exit}' "$_src" 2>/dev/null || true)
	[ -n "$apt_suite" ] || apt_suite=$(awk '/^Suites:/{print $2; exit}' "$_src" 2>/dev/null || true)
	if [ -z "$apt_uri" ]; then
		apt_uri=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
	fi
	: "${apt_suite:=bookworm}"
	if [ -z "$apt_uri" ]; then
		echo "apt-private: cannot find the Debian mirror in the system's apt configuration" >&2
		return 1
	fi
	_state="$_dir/apt/$apt_suite-$_type"
	mkdir -p "$_state/lists/partial"
	echo "$_type [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $apt_uri $apt_suite main" > "$_state/src.list"
	APT_PRIVATE="-o Dir::Etc::SourceList=$_state/src.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$_state/lists -o Debug::NoLocking=1"
	# shellcheck disable=SC2086
	apt-get -q $APT_PRIVATE update >&2
}
apt_private() {
	# shellcheck disable=SC2086
	apt-cache $APT_PRIVATE "$@"
}
apt_private_get() {
	# shellcheck disable=SC2086
	apt-get -q $APT_PRIVATE "$@"
}
