/* `lockfile doctor`: every precondition of docs/isolation.md, one line per
 * condition, each passing or failing by name (docs/isolation.md lists the
 * names); exit status 1 when any fails. Run in the console account, in the
 * terminal and the namespace the console would run in. */
#ifndef LOCKFILE_DOCTOR_H
#define LOCKFILE_DOCTOR_H

int cmd_doctor(int argc, char **argv);

#endif
