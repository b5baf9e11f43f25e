"""Running a command as another account, from root."""
import pwd


def setpriv(user):
    """The command prefix that runs as user with its own groups (setpriv(1):
    real and effective uid and gid, the supplementary groups from
    /etc/group). The tests run as root and start the console, plugins and
    agents as the accounts the system would (docs/testing.md)."""
    return ["setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups"]


def uid_of(user):
    return pwd.getpwnam(user).pw_uid
