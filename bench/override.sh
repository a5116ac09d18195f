#!/bin/sh
# SPDX-License-Identifier: MIT
# dpkg-scanpackages override lines ("PACKAGE PRIORITY SECTION") for the
# given .debs: the control file's Priority, except where the bookworm
# archive says otherwise.  apt, debconf and zlib1g are required in the
# archive but important or optional in the .deb; mmdebstrap's minbase
# (and debunpack-bootstrap's) is Essential:yes + Priority required, so
# without this a local mirror leaves apt and its dependencies out.
# Used by bench/rootlib.sh's mirrors and by tests/lib.sh's.
# usage: sh bench/override.sh DEB...
set -eu
for f; do
	p=$(dpkg-deb -f "$f" Package)
	case $p in
	apt | debconf | zlib1g) pr=required ;;
	libbz2-1.0) pr=important ;;
	libdb5.3) pr=standard ;;
	*) pr=$(dpkg-deb -f "$f" Priority) ;;
	esac
	echo "$p $pr $(dpkg-deb -f "$f" Section)"
done
