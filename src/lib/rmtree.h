/* Removing a directory tree by descriptor, never following a link: the
 * console's workspace and the store's staging both delete trees that an
 * account other than root could have raced on. */
#ifndef LOCKFILE_RMTREE_H
#define LOCKFILE_RMTREE_H

/* Deepest directory level removed below parent/name. */
#define RMTREE_MAX_DEPTH 8

/* Remove parent/name (a file, or a directory with everything below it,
 * RMTREE_MAX_DEPTH levels at most) without following symbolic links.
 * 0 when it is gone (or was already), -1 when anything stayed (errno of
 * the last failure). */
int rm_tree_at(int parent, const char *name);

#endif
