/* /proc/vmstat's event counters (mm/vmstat.h). */
#include "mm/vmstat.h"

struct vm_event_state vm_event_states[NR_CPUS];

unsigned long all_vm_events(enum vm_event_item item)
{
	unsigned long sum = 0;
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		sum += READ_ONCE(vm_event_states[cpu].event[item]);
	return sum;
}
