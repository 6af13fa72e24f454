/* The directories of the namespace that no one subsystem owns (Linux's
 * fs/proc/root.c, proc_sys's and sysfs's roots): /proc, /proc/sys,
 * /proc/sys/vm, /proc/sys/kernel, /sys, /sys/kernel, /sys/kernel/mm, /sys/devices and
 * /sys/devices/system, under a root of their own, "", which only this
 * namespace sees (the real root is tmpfs's: procfs and sysfs are mounted
 * on its /proc and /sys, fs/namespace.c, and the path walk hands over
 * here at those mount points). Everything in them is registered by the
 * code it describes (fs/proc/proc_fs.h). */
#include "fs/proc/proc_fs.h"

#define DIR_MODE (S_IFDIR | 0555)

const struct proc_dir_entry root_dir __proc_entry = { .name = "", .mode = DIR_MODE };

const struct proc_dir_entry proc_root_dir __proc_entry = {
	.parent = &root_dir, .name = "proc", .mode = DIR_MODE, .fs = PROC_FS_PROC,
};
static const struct proc_dir_entry proc_sys_dir __proc_entry = {
	.parent = &proc_root_dir, .name = "sys", .mode = DIR_MODE,
};
/* The vm sysctls: Linux's kernel/sysctl.c vm_table and mm/'s own tables. */
const struct proc_dir_entry proc_sys_vm_dir __proc_entry = {
	.parent = &proc_sys_dir, .name = "vm", .mode = DIR_MODE,
};

/* The file-system sysctls: Linux's fs/'s tables (pipe-max-size). */
const struct proc_dir_entry proc_sys_fs_dir __proc_entry = {
	.parent = &proc_sys_dir, .name = "fs", .mode = DIR_MODE,
};

/* The kernel sysctls: Linux's kern_table and ipc/ipc_sysctl.c's. */
const struct proc_dir_entry proc_sys_kernel_dir __proc_entry = {
	.parent = &proc_sys_dir, .name = "kernel", .mode = DIR_MODE,
};

const struct proc_dir_entry sys_dir __proc_entry = {
	.parent = &root_dir, .name = "sys", .mode = DIR_MODE, .fs = PROC_FS_SYS,
};
static const struct proc_dir_entry sys_kernel_dir __proc_entry = {
	.parent = &sys_dir, .name = "kernel", .mode = DIR_MODE,
};
/* Where Linux mounts debugfs. mmlab has no debugfs: the few debugfs files
 * it serves (mm/vmstat_frag.c's extfrag/) are part of sysfs's tree here,
 * at the paths Linux's would have. */
const struct proc_dir_entry sys_kernel_debug_dir __proc_entry = {
	.parent = &sys_kernel_dir, .name = "debug", .mode = DIR_MODE,
};
const struct proc_dir_entry sys_kernel_mm_dir __proc_entry = {
	.parent = &sys_kernel_dir, .name = "mm", .mode = DIR_MODE,
};
static const struct proc_dir_entry sys_devices_dir __proc_entry = {
	.parent = &sys_dir, .name = "devices", .mode = DIR_MODE,
};
const struct proc_dir_entry sys_devices_system_dir __proc_entry = {
	.parent = &sys_devices_dir, .name = "system", .mode = DIR_MODE,
};
