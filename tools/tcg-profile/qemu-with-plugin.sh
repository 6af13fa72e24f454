#!/bin/sh
# QEMU with the instruction-counting plugin (tools/tcg-profile/tb_count.c):
# what make profile hands the runner as its emulator (QEMU=).
exec "${TCG_PROFILE_QEMU:-qemu-system-x86_64}" "$@" \
	-plugin "$TCG_PROFILE_PLUGIN,out=$TCG_PROFILE_OUT"
