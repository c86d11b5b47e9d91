"""Entry point of the foretune zipapp (its __main__.py).

It must parse and run on any Python, 2.7 and 3.6 included, so that an old interpreter
gets one clear line instead of a traceback: no f-strings, no annotations, no imports
from foretune before the version check.
"""
import sys

MINIMUM = (3, 9)

if sys.version_info[:2] < MINIMUM:
    sys.stderr.write(
        "foretune: error: needs Python %d.%d or newer, this is Python %d.%d (%s); on RHEL 7 or 8 without "
        "a newer python3, make the collector on a machine that has one (`python3 foretune.pyz collector > "
        "foretune-collect.py`), run it here with this Python and audit its snapshot there\n"
        % (MINIMUM[0], MINIMUM[1], sys.version_info[0], sys.version_info[1], sys.executable or "python"))
    sys.exit(2)

SOURCES = "sources.zip"  # the archive's .py files, in one member (see _importer)


def _importer():
    """Make Python's zip importer read each module once and find the sources in SOURCES.

    The zip importer reads, inflates and unmarshals a module's code twice: for its file name (get_filename,
    when the module's spec is made) and again to run it (get_code); its reader, wrapped here, keeps the
    first read for the second. The archive's directory, parsed at every start, lists bytecode and data
    only: the sources are one member, read when a Python whose bytecode differs from the build's compiles
    them, or for a traceback's lines.
    """
    import zipimport

    read = getattr(zipimport, "_get_module_code", None)
    if read is None:
        return
    sources = []
    kept = []

    def source_of(importer, fullname):
        if not sources:
            import io
            import zipfile

            sources.append(zipfile.ZipFile(io.BytesIO(importer.get_data(SOURCES))))
        name = importer.prefix.replace("\\", "/") + fullname.rpartition(".")[2]
        name += "/__init__.py" if importer.is_package(fullname) else ".py"
        if name not in sources[0].NameToInfo:
            raise zipimport.ZipImportError("can't find module " + repr(fullname))
        return sources[0].read(name), importer.archive + "/" + name

    def module_code(importer, fullname):
        if kept and kept[0] is importer and kept[1] == fullname:
            found = kept[2]
            del kept[:]
            return found
        try:
            found = read(importer, fullname)
        except zipimport.ZipImportError:
            source, path = source_of(importer, fullname)
            found = (compile(source, path, "exec", dont_inherit=True), importer.is_package(fullname), path)
        kept[:] = [importer, fullname, found]
        return found

    plain_source = zipimport.zipimporter.get_source

    def get_source(importer, fullname):
        text = plain_source(importer, fullname)
        if text is None:
            try:  # noqa: SIM105 (contextlib.suppress is newer than Python 2.7, which must parse this file)
                text = source_of(importer, fullname)[0].decode("utf-8")
            except zipimport.ZipImportError:
                pass
        return text

    zipimport._get_module_code = module_code
    zipimport.zipimporter.get_source = get_source


_importer()

from foretune.cli import _zipapp_main  # noqa: E402

_zipapp_main()
