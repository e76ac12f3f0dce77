"""
Point the CMake files of the ROS 2 wheels at this interpreter's paths.

The PyPI wheels of ROS 2 export CMake files that name the Python paths of the container they were
built in (``/opt/python/cp311-cp311/...``). CMake refuses imported targets whose include paths do
not exist, so interface packages cannot be built until those prefixes are rewritten to the include
and site-packages directories of the interpreter running this script. Idempotent.
"""

import pathlib
import sys
import sysconfig

BUILD_PREFIX = '/opt/python/cp311-cp311'
REPLACEMENTS = {
    f'{BUILD_PREFIX}/include/python3.11': sysconfig.get_paths()['include'],
    f'{BUILD_PREFIX}/lib/python3.11/site-packages': sysconfig.get_paths()['purelib'],
}


def main() -> int:
    share = pathlib.Path(sys.prefix) / 'share'
    changed = 0
    for path in share.rglob('*.cmake'):
        text = path.read_text(encoding='utf-8', errors='surrogateescape')
        if BUILD_PREFIX not in text:
            continue
        new_text = text
        for old, new in REPLACEMENTS.items():
            new_text = new_text.replace(old, new)
        if new_text != text:
            path.write_text(new_text, encoding='utf-8', errors='surrogateescape')
            changed += 1
    if changed:
        print(f'fix_cmake_paths: rewrote {changed} CMake files under {share}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
