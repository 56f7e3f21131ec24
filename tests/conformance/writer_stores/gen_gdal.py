"""Stores written by GDAL's Zarr driver (C++), v2 and GDAL's Zarr v3, read back by GDAL.

Run with the Python that has GDAL's bindings (Debian: ``apt-get install python3-gdal``,
then ``/usr/bin/python3 gen_gdal.py``). GDAL 3.6 (Debian 12) writes Zarr V2 and the Zarr
V3 of its time; both are recorded.

The multidimensional API writes an array per data type GDAL has (Byte .. UInt64, Int64,
floats, complex, complex integers, strings), each compression GDAL offers (NONE, BLOSC
with each cname and shuffle, ZLIB, GZIP, LZMA, ZSTD, LZ4), the DELTA filter, F chunk
layout, both separators, nodata (fill) values, and the classic raster API (a GeoTIFF-like
raster with bands, geotransform and CRS attributes).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
from osgeo import gdal

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder, sample  # noqa: E402

gdal.UseExceptions()
SHAPE, CHUNKS = (9, 7), (4, 3)
TYPES = {"Byte": gdal.GDT_Byte, "UInt16": gdal.GDT_UInt16, "Int16": gdal.GDT_Int16,
         "UInt32": gdal.GDT_UInt32, "Int32": gdal.GDT_Int32, "Float32": gdal.GDT_Float32,
         "Float64": gdal.GDT_Float64, "CFloat32": gdal.GDT_CFloat32,
         "CFloat64": gdal.GDT_CFloat64, "CInt16": gdal.GDT_CInt16, "CInt32": gdal.GDT_CInt32}
for _n in ("Int8", "UInt64", "Int64"):
    if hasattr(gdal, f"GDT_{_n}"):
        TYPES[_n] = getattr(gdal, f"GDT_{_n}")


def md_case(rec, fmt, name, gtype, options, nodata=None, partial=False):
    path = rec.stores / f"{name}.zarr"
    try:
        drv = gdal.GetDriverByName("ZARR")
        ds = drv.CreateMultiDimensional(str(path), options=[f"FORMAT={fmt}"])
        rg = ds.GetRootGroup()
        if gtype == "string":  # GDAL writes strings from Python along one dimension
            dx = rg.CreateDimension("x", None, None, 6)
            arr = rg.CreateMDArray("var", [dx], gdal.ExtendedDataType.CreateString(12),
                                   ["BLOCKSIZE=4", *options])
            arr.WriteStringArray([0], [6], [1], gdal.ExtendedDataType.CreateString(),
                                 ["ab", "", "héllo", "x" * 12, "y", "日本"])
            dy = None
        else:
            dy = rg.CreateDimension("y", None, None, SHAPE[0])
            dx = rg.CreateDimension("x", None, None, SHAPE[1])
            arr = rg.CreateMDArray("var", [dy, dx], gdal.ExtendedDataType.Create(gtype),
                                   [f"BLOCKSIZE={CHUNKS[0]},{CHUNKS[1]}", *options])
            if nodata is not None:
                arr.SetNoDataValueDouble(nodata)
            data = sample(_np_type(gtype))
            if partial:
                arr.Write(np.ascontiguousarray(data[:4, :3]), array_start_idx=[0, 0],
                          count=[4, 3])
            else:
                arr.Write(data)
        arr.SetUnit("m")
        del arr, dy, dx, rg, ds  # the dataset writes its metadata when the last one goes
        back = gdal.OpenEx(str(path), gdal.OF_MULTIDIM_RASTER).GetRootGroup().OpenMDArray("var")
        values = back.ReadAsArray() if gtype != "string" else np.array(
            back.Read(), dtype=object)  # str objects (zarrhpc: the stored S / U type)
        nd = back.GetNoDataValueAsDouble() if gtype != "string" else None
        rec.add(name, f"{name}.zarr", "var", values, fmt=fmt, nodata=nd)
    except Exception as exc:
        rec.skip(name, exc)
        shutil.rmtree(path, ignore_errors=True)


def _np_type(gtype):
    return {gdal.GDT_Byte: "u1", gdal.GDT_UInt16: "u2", gdal.GDT_Int16: "i2",
            gdal.GDT_UInt32: "u4", gdal.GDT_Int32: "i4", gdal.GDT_Float32: "f4",
            gdal.GDT_Float64: "f8", gdal.GDT_CFloat32: "c8", gdal.GDT_CFloat64: "c16",
            gdal.GDT_CInt16: "c8", gdal.GDT_CInt32: "c16",
            getattr(gdal, "GDT_Int8", -1): "i1", getattr(gdal, "GDT_UInt64", -2): "u8",
            getattr(gdal, "GDT_Int64", -3): "i8"}[gtype]


def raster_case(rec, fmt, name, options):
    path = rec.stores / f"{name}.zarr"
    try:
        drv = gdal.GetDriverByName("ZARR")
        ds = drv.Create(str(path), 11, 8, 3, gdal.GDT_Int16,
                        options=[f"FORMAT={fmt}", "BLOCKSIZE=4,5", *options])
        ds.SetGeoTransform([100.0, 0.5, 0.0, 200.0, 0.0, -0.5])
        from osgeo import osr

        srs = osr.SpatialReference()
        srs.ImportFromEPSG(32631)
        ds.SetSpatialRef(srs)
        for b in range(3):
            band = ds.GetRasterBand(b + 1)
            band.SetNoDataValue(-9999)
            band.WriteArray((np.arange(88, dtype="i2").reshape(8, 11) * (b + 1)) - 40)
            del band
        del ds, srs
        back = gdal.OpenEx(str(path), gdal.OF_MULTIDIM_RASTER).GetRootGroup()
        for arr_name in back.GetMDArrayNames():
            a = back.OpenMDArray(arr_name)
            rec.add(f"{name}-{arr_name}", f"{name}.zarr", arr_name, a.ReadAsArray(), fmt=fmt)
    except Exception as exc:
        rec.skip(name, exc)


def main():
    rec = Recorder(f"gdal-{gdal.__version__}", {"gdal": gdal.__version__,
                                                "numpy": np.__version__})
    for fmt in ("ZARR_V2", "ZARR_V3"):
        f = fmt[-2:].lower()
        for tname, gtype in TYPES.items():
            md_case(rec, fmt, f"{f}-{tname}", gtype, [])
            md_case(rec, fmt, f"{f}-{tname}-nodata", gtype, [], nodata=7, partial=True)
        md_case(rec, fmt, f"{f}-string", "string", [])
        md_case(rec, fmt, f"{f}-unicode", "string", ["STRING_FORMAT=UNICODE"])
        for comp in ("ZLIB", "GZIP", "LZMA", "ZSTD", "LZ4"):
            md_case(rec, fmt, f"{f}-{comp}", gdal.GDT_Float32, [f"COMPRESS={comp}"])
        for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
            for shuf in ("NONE", "BYTE", "BIT"):
                md_case(rec, fmt, f"{f}-blosc-{cname}-{shuf}", gdal.GDT_Int32,
                        ["COMPRESS=BLOSC", f"BLOSC_CNAME={cname}", f"BLOSC_SHUFFLE={shuf}"])
        md_case(rec, fmt, f"{f}-F", gdal.GDT_Float64, ["CHUNK_MEMORY_LAYOUT=F"])
        md_case(rec, fmt, f"{f}-F-zstd", gdal.GDT_UInt16, ["CHUNK_MEMORY_LAYOUT=F",
                                                            "COMPRESS=ZSTD"])
        md_case(rec, fmt, f"{f}-sep-slash", gdal.GDT_Int16, ["DIM_SEPARATOR=/"])
        md_case(rec, fmt, f"{f}-sep-dot", gdal.GDT_Int16, ["DIM_SEPARATOR=."])
        if fmt == "ZARR_V2":
            md_case(rec, fmt, f"{f}-delta", gdal.GDT_Int32, ["FILTER=DELTA",
                                                              "COMPRESS=ZLIB"])
            md_case(rec, fmt, f"{f}-delta-f8", gdal.GDT_Float64, ["FILTER=DELTA"])
        raster_case(rec, fmt, f"{f}-raster", [])
        raster_case(rec, fmt, f"{f}-raster-zstd", ["COMPRESS=ZSTD"])
    rec.pack()


if __name__ == "__main__":
    main()
