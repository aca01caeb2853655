#pragma once
// VtkView: a Qt6 QOpenGLWidget that hosts a vtkGenericOpenGLRenderWindow. Debian's VTK ships its
// Qt module for Qt5 only, so this does what QVTKOpenGLNativeWidget does: VTK renders into its own
// framebuffer inside Qt's context and the result is blitted into the widget's framebuffer.
// The recipe and its one trap (re-binding Qt's FBO on every VTK make-current request corrupts
// VTK's state cache) are described in docs/gui.md.
#include <QOpenGLWidget>
#include <QPoint>

#include <vtkNew.h>
#include <vtkSmartPointer.h>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkRenderer;
class vtkObject;

namespace racktwin::gui {

class VtkView : public QOpenGLWidget {
  Q_OBJECT
 public:
  explicit VtkView(QWidget* parent = nullptr);
  ~VtkView() override;

  vtkGenericOpenGLRenderWindow* renderWindow() const noexcept { return window_; }
  vtkGenericRenderWindowInteractor* interactor() const noexcept { return interactor_; }
  /// Asks for a VTK render at the next paint (the scene changed).
  void requestRender();
  /// Renders now and returns the widget's framebuffer (what the screen shows), opaque.
  QImage grabView();

 signals:
  /// A left click without a drag, in VTK display coordinates (origin bottom-left, device pixels).
  void clicked(int x, int y);

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  static void vtkCallback(vtkObject* caller, unsigned long event_id, void* client_data,
                          void* call_data);
  void onVtkEvent(vtkObject* caller, unsigned long event_id, void* call_data);
  void setEventPosition(const QPointF& position, Qt::KeyboardModifiers modifiers, int repeat = 0);
  void finalizeContext();

  vtkGenericOpenGLRenderWindow* window_ = nullptr;
  vtkGenericRenderWindowInteractor* interactor_ = nullptr;
  unsigned long observer_tags_[3] = {0, 0, 0};
  bool render_pending_ = true;
  bool in_paint_ = false;
  QPoint press_position_;
  bool dragged_ = false;
};

}  // namespace racktwin::gui
